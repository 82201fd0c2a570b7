// The `vault` signer against a simulated Vault (test/support/simulators/vault.ts) over HTTP: AppRole login, the key
// read from a KV v2 secret, then signing in process. An EVM send through the service is confirmed on anvil.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { getBase58Encoder } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import { keccak256, recoverAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { SignerConfig } from '../../src/config/config.ts';
import { createSigner as adapter } from '../../src/signers/vault/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { startVaultSim, type VaultSim } from '../support/simulators/vault.ts';
import { build } from '../helper.ts';
import { sendIsMinedFrom } from './support.ts';

const createSigner = fromEnv(adapter);

// anvil's publicly known account #1: a development key, never real funds.
const EVM_KEY = ANVIL_KEYS[1];
const EVM_ADDRESS = privateKeyToAccount(EVM_KEY).address;
const SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'; // RFC 8032 test 1 secret key
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

const vault = await startVaultSim();
after(() => vault.close());
vault.putKv('secret', 'evm-key', { value: EVM_KEY });
vault.putKv('secret', 'ed-key', { value: SEED });
vault.putKv('kv-relayer', 'evm-key', { value: EVM_KEY.slice(2) });
vault.putKv('secret', 'no-value', { other: 'x' });

function entry(sim: VaultSim, config: Record<string, unknown> = {}, id = 'vault-signer'): SignerConfig {
  return {
    id,
    type: 'vault',
    config: {
      address: sim.url,
      role_id: { type: 'plain', value: sim.roleId },
      secret_id: { type: 'plain', value: sim.secretId },
      key_name: 'evm-key',
      ...config,
    },
  } as SignerConfig;
}
const env = (extra: Record<string, string> = {}) => ({ ...extra }) as NodeJS.ProcessEnv;

test('EVM: the address comes from the key in Vault; a digest is signed by it (v recovered)', async () => {
  const signer = await createSigner(entry(vault), 'evm', { env: env() });
  assert.equal(signer.address, EVM_ADDRESS);
  const digest = keccak256(toHex('relaybox vault'));
  const signature = await signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex'));
  assert.equal(await recoverAddress({ hash: digest, signature: toHex(signature) }), EVM_ADDRESS);
});

test('a mount point other than secret, and a key without 0x, are read as configured', async () => {
  const signer = await createSigner(entry(vault, { mount_point: 'kv-relayer' }), 'evm', { env: env() });
  assert.equal(signer.address, EVM_ADDRESS);
});

test('Solana and Stellar: the key is an Ed25519 seed; signatures verify against the address', async () => {
  const message = new TextEncoder().encode('a transaction message');
  const solana = await createSigner(entry(vault, { key_name: 'ed-key' }), 'solana', { env: env() });
  const stellar = await createSigner(entry(vault, { key_name: 'ed-key' }), 'stellar', { env: env() });
  // RFC 8032 test 1's public key, in each network's spelling.
  const publicKey = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
  assert.deepEqual(Buffer.from(getBase58Encoder().encode(solana.address)), publicKey);
  assert.equal(stellar.address, StrKey.encodeEd25519PublicKey(publicKey));
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
  for (const s of [solana, stellar]) assert.ok(verify(null, message, key, await s.ed25519!.sign(message)));
});

test('a wrong secret_id or role_id is refused at login (400): a start-up error naming the signer, no secret shown', async () => {
  const refusedBefore = vault.stats.refusedLogins;
  for (const wrong of [
    { secret_id: { type: 'plain', value: 'not-the-secret-id' } },
    { role_id: { type: 'plain', value: 'not-the-role-id' } },
  ]) {
    await assert.rejects(createSigner(entry(vault, wrong), 'evm', { env: env() }), (err: Error) => {
      assert.match(
        err.message,
        /^signer 'vault-signer': Vault AppRole login: HTTP 400: refused \(check role_id and secret_id\)$/,
      );
      assert.ok(!err.message.includes('not-the-') && !err.message.includes(vault.secretId));
      return true;
    });
  }
  assert.equal(vault.stats.refusedLogins - refusedBefore, 2, 'the simulator checked and refused both');
});

test('the simulated Vault refuses KV reads without a token it issued (403)', async () => {
  for (const token of [undefined, 'hvs.forged']) {
    const res = await fetch(`${vault.url}/v1/secret/data/evm-key`, {
      headers: token ? { 'x-vault-token': token } : {},
    });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { errors: ['permission denied'] });
  }
});

test('a namespace is sent with every call; the wrong one is refused', async (t) => {
  const scoped = await startVaultSim({ namespace: 'team-a' });
  t.after(() => scoped.close());
  scoped.putKv('secret', 'evm-key', { value: EVM_KEY });
  assert.equal(
    (await createSigner(entry(scoped, { namespace: 'team-a' }), 'evm', { env: env() })).address,
    EVM_ADDRESS,
  );
  await assert.rejects(
    createSigner(entry(scoped, { namespace: 'team-b' }), 'evm', { env: env() }),
    /login: HTTP 400: refused/,
  );
  await assert.rejects(createSigner(entry(scoped), 'evm', { env: env() }), /login: HTTP 400: refused/);
});

test('a missing secret, a secret without value, and a key of the wrong size each fail naming the signer and the cause', async () => {
  await assert.rejects(
    createSigner(entry(vault, { key_name: 'absent' }), 'evm', { env: env() }),
    /^RemoteSignerError: signer 'vault-signer': Vault KV read of 'absent' at 'secret': HTTP 404: not found/,
  );
  await assert.rejects(
    createSigner(entry(vault, { key_name: 'no-value' }), 'evm', { env: env() }),
    /signer 'vault-signer': Vault secret 'no-value' at 'secret' has no 'value' field/,
  );
  vault.putKv('secret', 'short', { value: 'abcd' });
  await assert.rejects(
    createSigner(entry(vault, { key_name: 'short' }), 'evm', { env: env() }),
    /'value' must be 32 bytes of hex/,
  );
});

test('an unreachable, a hanging and a throttling Vault each give a bounded error naming the signer', async (t) => {
  const sim = await startVaultSim();
  sim.putKv('secret', 'evm-key', { value: EVM_KEY });
  sim.setFault('hang');
  await assert.rejects(
    createSigner(entry(sim), 'evm', { env: env({ SIGNER_TIMEOUT_MS: '300' }) }),
    /^RemoteSignerError: signer 'vault-signer': Vault AppRole login: no answer within 300 ms \(timed out\)$/,
  );
  sim.setFault('throttle');
  await assert.rejects(
    createSigner(entry(sim), 'evm', { env: env() }),
    /signer 'vault-signer': Vault AppRole login: HTTP 429: throttled/,
  );
  await sim.close();
  // A port nothing listens on any more, never connected to (a pooled socket would fail otherwise).
  const gone = await startVaultSim();
  await gone.close();
  await assert.rejects(
    createSigner(entry(gone), 'evm', { env: env() }),
    /signer 'vault-signer': Vault AppRole login: unreachable \(ECONNREFUSED\)/,
  );
  t.diagnostic('each failure was one sentence, no stack trace in the message');
});

test('through the service: a relayer with a vault signer has the key address and its EVM send is confirmed on anvil', async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const s = await build(t, {
    env: { RELAYBOX_VAULT_ROLE_ID: vault.roleId, RELAYBOX_VAULT_SECRET_ID: vault.secretId },
    config: {
      networks: [anvil.network('anvil')],
      signers: [
        {
          id: 'vault-evm',
          type: 'vault',
          config: {
            address: vault.url,
            role_id: { type: 'env', value: 'RELAYBOX_VAULT_ROLE_ID' },
            secret_id: { type: 'env', value: 'RELAYBOX_VAULT_SECRET_ID' },
            key_name: 'evm-key',
          },
        } as SignerConfig,
      ],
      relayers: [{ id: 'vault-relayer', name: 'vault', network: 'anvil', signer_id: 'vault-evm' }],
      notifications: [],
      plugins: [],
    },
  });
  const relayer = await s.request('GET', '/api/v1/relayers/vault-relayer');
  assert.equal(relayer.status, 200, relayer.text);
  assert.equal(relayer.body.data.address.toLowerCase(), EVM_ADDRESS.toLowerCase());
  const to = '0x00000000000000000000000000000000000000a1';
  await sendIsMinedFrom(s, anvil, 'vault-relayer', EVM_ADDRESS, to);
  assert.ok(!s.rawLogs().includes(vault.secretId), 'the secret_id is never logged');
});

test("an 'address' or a client base URL that is not an http(s) URL is refused naming the signer and where it is set, not in fetch's words", async () => {
  for (const address of ['vault.internal:8200', 'ftp://vault.internal', '']) {
    await assert.rejects(
      createSigner(entry(vault, { address }), 'evm', { env: env() }),
      { message: "signer 'vault-signer': 'address' (the Vault server) must be an http(s) URL (https://host[:port])" },
      address,
    );
  }
  const createTurnkey = fromEnv((await import('../../src/signers/turnkey/signer.ts')).createSigner);
  const createCdp = fromEnv((await import('../../src/signers/cdp/signer.ts')).createSigner);
  const { newTurnkeyApiKey } = await import('../support/simulators/turnkey.ts');
  const { newCdpCredentials } = await import('../support/simulators/cdp.ts');
  const apiKey = newTurnkeyApiKey();
  const turnkey = {
    id: 'tk',
    type: 'turnkey',
    config: {
      api_public_key: apiKey.apiPublicKey,
      api_private_key: { type: 'plain', value: apiKey.apiPrivateKey },
      organization_id: 'o',
      private_key_id: 'k',
      public_key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    },
  } as unknown as SignerConfig;
  await assert.rejects(createTurnkey(turnkey, 'solana', { env: env({ TURNKEY_API_BASE_URL: 'api.turnkey.local' }) }), {
    message: "signer 'tk': TURNKEY_API_BASE_URL must be an http(s) URL (https://host[:port])",
  });
  const c = newCdpCredentials().credentials;
  const cdp = {
    id: 'cdp',
    type: 'cdp',
    config: {
      api_key_id: c.apiKeyId,
      api_key_secret: { type: 'plain', value: c.apiKeySecret },
      wallet_secret: { type: 'plain', value: c.walletSecret },
      account_address: EVM_ADDRESS,
    },
  } as unknown as SignerConfig;
  await assert.rejects(createCdp(cdp, 'evm', { env: env({ CDP_API_BASE_URL: 'not a url' }) }), {
    message: "signer 'cdp': CDP_API_BASE_URL must be an http(s) URL (https://host[:port])",
  });
});
