// POST /api/v1/signers with every signer type in the reference's request shape (and our pkcs11): each config checked by
// its type's schema; every secret field sealed in `signers.secret`, never in `config`, never in an answer or a log;
// handed back to the adapter as `{ type: 'plain', value }`; a type without its adapter refused with the supported list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SIGNER_TYPES, getPath, SIGNER_SCHEMAS, type SignerType } from '../../src/config/signer-schemas.ts';
import { SUPPORTED_SIGNER_TYPES } from '../../src/config/signer-types.ts';
import type { SignerConfig } from '../../src/config/config.ts';
import { createSignerService } from '../../src/domain/signers/service.ts';
import { createSecretBox } from '../../src/domain/secret-box.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createSqliteStore } from '../../src/store/sqlite/store.ts';
import { build } from '../helper.ts';

const STORAGE_KEY = 'storage-key-for-signer-types-0123456789';

/** Each remote type's request body: its secrets are long, distinct strings, so any leak is found by search. */
const secret = (name: string) => `sekret-${name}-0123456789abcdef`;
const BODIES: Record<Exclude<SignerType, 'local'>, Record<string, unknown>> = {
  aws_kms: { region: 'us-east-1', key_id: 'alias/relayer' },
  azure_key_vault: {
    auth_type: 'client_secret',
    tenant_id: secret('tenant'),
    client_id: secret('client'),
    client_secret: secret('azure'),
    vault_url: 'https://v.vault.azure.net',
    key_name: 'k',
  },
  turnkey: {
    api_public_key: '02ab',
    api_private_key: secret('turnkey'),
    organization_id: 'org',
    private_key_id: 'pk',
    public_key: '02cd',
  },
  cdp: {
    api_key_id: 'key-id',
    api_key_secret: secret('cdp-api'),
    wallet_secret: secret('cdp-wallet'),
    account_address: '0x0000000000000000000000000000000000000001',
  },
  vault: {
    address: 'http://127.0.0.1:8200',
    role_id: secret('role'),
    secret_id: secret('vault'),
    key_name: 'relayer-key',
  },
  vault_transit: {
    address: 'http://127.0.0.1:8200',
    role_id: secret('trole'),
    secret_id: secret('transit'),
    key_name: 'ed',
    pubkey: 'base64key',
  },
  google_cloud_kms: {
    service_account: {
      project_id: 'p',
      private_key_id: secret('gkid'),
      private_key: secret('gkey'),
      client_email: secret('gmail'),
      client_id: 'c',
    },
    key: { key_ring_id: 'ring', key_id: 'key' },
  },
  pkcs11: {
    module_path: '/usr/lib/softhsm/libsofthsm2.so',
    token_label: 'relaybox',
    pin: secret('pin'),
    key_label: 'evm1',
  },
};
const SECRETS = Object.entries(BODIES).flatMap(([type, config]) =>
  SIGNER_SCHEMAS[type as SignerType].secretFields
    .map((f) => getPath(config, f) as string | undefined)
    .filter((v) => v !== undefined),
);

test('every type: secrets sealed apart from config, never shown, given back to the adapter in plain', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'signer-types-'));
  const store = createSqliteStore(openDatabase(dir));
  t.after(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const handed: SignerConfig[] = [];
  const service = await createSignerService({
    repo: store.repos.signers,
    relayers: store.repos.relayers,
    signers: [],
    secrets: createSecretBox(STORAGE_KEY),
    resolveSigner: async (entry) => {
      handed.push(entry);
      return { address: '0x0000000000000000000000000000000000000001' };
    },
    logger: createLogger('silent'),
    supportedTypes: ALL_SIGNER_TYPES,
  });
  assert.equal(SECRETS.length, 14, 'every secret field of the bodies is looked for');
  for (const [type, config] of Object.entries(BODIES)) {
    const view = await service.create({ id: `s-${type}`, type, config: structuredClone(config) });
    assert.equal(view.type, type);
    const row = (await store.repos.signers.get(`s-${type}`))!;
    assert.equal(row.type, type);
    assert.match(row.secret!, /^enc:v1:/, `${type}: its secret fields are sealed under STORAGE_ENCRYPTION_KEY`);
    for (const s of SECRETS)
      assert.ok(!JSON.stringify(row).includes(s), `${type}: no secret in the stored row in clear`);
    await service.resolve(`s-${type}`, 'evm');
    const entry = handed.at(-1) as unknown as { id: string; type: string; config: object };
    assert.equal(entry.type, type);
    for (const field of SIGNER_SCHEMAS[type as SignerType].secretFields) {
      const given = getPath(config, field);
      if (given !== undefined)
        assert.deepEqual(
          getPath(entry.config, field),
          { type: 'plain', value: given },
          `${type}.${field} handed in plain`,
        );
    }
  }
  const shown = JSON.stringify([
    await service.list({ page: 1, per_page: 100 }),
    ...(await Promise.all(Object.keys(BODIES).map((type) => service.get(`s-${type}`)))),
  ]);
  for (const s of SECRETS) assert.ok(!shown.includes(s), 'no secret in any answer');
  // The public fields are shown, defaults filled in (the reference's google_cloud_kms defaults).
  assert.deepEqual((await service.get('s-aws_kms')).config, BODIES.aws_kms);
  assert.equal(
    ((await service.get('s-google_cloud_kms')).config as { key: { location: string } }).key.location,
    'global',
  );
  // A type without its adapter is refused with the supported list.
  const narrow = await createSignerService({
    repo: store.repos.signers,
    relayers: store.repos.relayers,
    signers: [],
    secrets: createSecretBox(STORAGE_KEY),
    resolveSigner: async () => ({ address: '' }),
    logger: createLogger('silent'),
    supportedTypes: ['local', 'aws_kms'],
  });
  await assert.rejects(narrow.create({ type: 'vault', config: BODIES.vault }), (err: { reason?: string }) =>
    /signer type 'vault' is not supported by Relaybox \(supported: plain, aws_kms\)/.test(err.reason ?? ''),
  );
});

test('the API checks each type by its schema, answers without secrets and logs none', async (t) => {
  const s = await build(t, { env: { STORAGE_ENCRYPTION_KEY: STORAGE_KEY } });
  const missing = await s.request('POST', '/api/v1/signers', {
    body: { type: 'vault', config: { address: 'http://v', role_id: 'r', key_name: 'k' } },
  });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /missing required field 'config.secret_id'/);
  const unknown = await s.request('POST', '/api/v1/signers', {
    body: { type: 'aws_kms', config: { region: 'r', key_id: 'k', token: 'x' } },
  });
  assert.match(unknown.body.error, /unknown field 'config.token'/);
  for (const [type, config] of Object.entries(BODIES)) {
    const res = await s.request('POST', '/api/v1/signers', { body: { id: `api-${type}`, type, config } });
    if (!SUPPORTED_SIGNER_TYPES.includes(type as SignerType)) {
      assert.equal(res.status, 400, type);
      assert.match(
        res.body.error,
        new RegExp(`signer type '${type}' is not supported by Relaybox \\(supported: plain`),
      );
      continue;
    }
    assert.equal(res.status, 201, `${type}: ${res.text}`);
    assert.equal((await s.request('GET', `/api/v1/signers/api-${type}`)).body.data.type, type);
  }
  const list = await s.request('GET', '/api/v1/signers?per_page=100');
  for (const secretValue of SECRETS) {
    assert.ok(!list.text.includes(secretValue), 'no secret in the list');
    assert.ok(!s.rawLogs().includes(secretValue), 'no secret in the logs');
  }
});
