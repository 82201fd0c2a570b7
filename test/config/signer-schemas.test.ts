// Each signer type's config schema (src/config/signer-schemas.ts): the reference's field names, required fields,
// defaults and null Options; our pkcs11's exactly-one rules; the config file refusing a type whose adapter is absent.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { loadConfigFile } from '../../src/config/config.ts';
import { allSecretFieldPaths, applyDefaults, SIGNER_SCHEMAS } from '../../src/config/signer-schemas.ts';
import { REDACTED_PATHS } from '../../src/observability/logger.ts';
import { compile } from '../../src/validation/compile.ts';

const env = (value: string) => ({ type: 'env', value });
const valid = {
  local: { path: 'config/keys/local-signer.json', passphrase: env('KEYSTORE_PASSPHRASE') },
  aws_kms: { region: 'us-east-1', key_id: 'alias/relayer' },
  azure_key_vault: {
    auth_type: 'client_secret',
    tenant_id: env('T'),
    client_id: env('C'),
    client_secret: env('S'),
    vault_url: 'https://v.vault.azure.net',
    key_name: 'k',
    key_version: null,
  },
  turnkey: {
    api_public_key: 'pub',
    api_private_key: env('TK'),
    organization_id: 'o',
    private_key_id: 'p',
    public_key: 'x',
  },
  cdp: { api_key_id: 'id', api_key_secret: env('A'), wallet_secret: env('W'), account_address: '0x0' },
  vault: { address: 'http://vault:8200', role_id: env('R'), secret_id: env('S'), key_name: 'k', mount_point: 'secret' },
  vault_transit: { address: 'http://vault:8200', role_id: env('R'), secret_id: env('S'), key_name: 'k', pubkey: '' },
  google_cloud_kms: {
    service_account: {
      project_id: 'p',
      private_key_id: env('A'),
      private_key: env('B'),
      client_email: env('C'),
      client_id: 'c',
    },
    key: { key_ring_id: 'r', key_id: 'k' },
  },
  pkcs11: {
    module_path: '/usr/lib/softhsm/libsofthsm2.so',
    token_label: 'relaybox',
    pin: env('PIN'),
    key_label: 'evm',
  },
} as const;

const validators = Object.fromEntries(
  Object.entries(SIGNER_SCHEMAS).map(([t, { schema }]) => [t, compile<object>(schema, 'config')]),
);
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { reason?: string }).reason ?? (err as Error).message;
  }
  return 'accepted';
};

test('every type has a schema that accepts its reference-shaped config and lists its secret fields', () => {
  assert.deepEqual(Object.keys(SIGNER_SCHEMAS).sort(), Object.keys(valid).sort());
  for (const [type, config] of Object.entries(valid))
    assert.equal(
      reason(() => validators[type]!(structuredClone(config))),
      'accepted',
      type,
    );
  assert.deepEqual(SIGNER_SCHEMAS.vault.secretFields, ['role_id', 'secret_id']);
  assert.ok(allSecretFieldPaths().includes('service_account.private_key'));
});

test('required fields, unknown fields and the per-mode rules are refused with the field named', () => {
  assert.match(
    reason(() => validators.aws_kms!({ region: 'x' })),
    /missing required field 'key_id'/,
  );
  assert.match(
    reason(() => validators.vault!({ ...valid.vault, token: 'x' })),
    /unknown field 'token'/,
  );
  // auth_type absent means client_secret, which needs the secret.
  const { client_secret: _, auth_type: __, ...noSecret } = valid.azure_key_vault;
  assert.match(
    reason(() => validators.azure_key_vault!(noSecret)),
    /client_secret/,
  );
  assert.equal(
    reason(() => validators.azure_key_vault!({ auth_type: 'managed_identity', vault_url: 'https://v', key_name: 'k' })),
    'accepted',
  );
  assert.match(
    reason(() =>
      validators.azure_key_vault!({
        auth_type: 'workload_identity',
        vault_url: 'https://v',
        key_name: 'k',
        tenant_id: env('T'),
      }),
    ),
    /client_id/,
  );
  assert.match(
    reason(() => validators.pkcs11!({ ...valid.pkcs11, slot: 0 })),
    /exactly one of 'token_label' or 'slot'/,
  );
  assert.match(
    reason(() => validators.pkcs11!({ module_path: '/m.so', slot: 1, pin: env('P') })),
    /exactly one of 'key_label' or 'key_id'/,
  );
  assert.equal(
    reason(() => validators.pkcs11!({ module_path: '/m.so', slot: 1, pin: env('P'), key_id: '0a0b' })),
    'accepted',
  );
});

test("google_cloud_kms gets the reference's defaults", () => {
  const config = structuredClone(valid.google_cloud_kms) as Record<string, Record<string, unknown>>;
  applyDefaults(SIGNER_SCHEMAS.google_cloud_kms.schema, config);
  assert.equal(config.key!.location, 'global');
  assert.equal(config.key!.key_version, 1);
  assert.equal(config.service_account!.token_uri, 'https://oauth2.googleapis.com/token');
  assert.equal(config.service_account!.universe_domain, 'googleapis.com');
});

test('the log redacts every secret field of every type', () => {
  for (const field of allSecretFieldPaths()) assert.ok(REDACTED_PATHS.includes(`config.${field}`), field);
});

test('a config naming a type whose adapter is absent is refused with the supported list', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'signer-schemas-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({ signers: [{ id: 'hsm', type: 'nope', config: {} }], relayers: [], networks: [] }),
  );
  assert.throws(() => loadConfigFile(file), /signer 'hsm': type 'nope' is not supported \(supported: local/);
});
