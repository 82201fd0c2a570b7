// The azure_key_vault signer through Azure's official clients (@azure/keyvault-keys, @azure/identity) against the
// simulated Key Vault and Entra authority (test/support/simulators/azure-keyvault.ts, HTTPS with its own certificate),
// which issues tokens only for the right client credentials and checks the bearer token of every vault call: the
// address from the vault's key, EVM signatures made r‖s‖v and recovering to it, and each failure told naming the signer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recoverAddress, toHex } from 'viem';
import type { SignerConfig } from '../../src/config/config.ts';
import { evmAddressFromPublicKey } from '../../src/signers/evm-signature.ts';
import { createSigner as adapter } from '../../src/signers/azure_key_vault/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { startAzureKeyVaultSim, type AzureKeyVaultSim } from '../support/simulators/azure-keyvault.ts';
import { startAnvil } from '../support/anvil.ts';
import { startService } from '../faults/support.ts';
import { API_KEY, build } from '../helper.ts';
import { sendIsMinedFrom } from './support.ts';
import { eventually } from '../support/eventually.ts';

const createSigner = fromEnv(adapter);

const HALF_N = BigInt('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

let sim: AzureKeyVaultSim;
before(async () => {
  sim = await startAzureKeyVaultSim();
  // The operator's trust of a private CA (NODE_EXTRA_CA_CERTS), for the clients running in this test process.
  sim.trust();
});
after(() => sim.stop());

const env = (extra: Record<string, string> = {}) => ({ ...process.env, AZURE_AUTHORITY_HOST: sim.url, ...extra });
const plain = (value: string) => ({ type: 'plain', value });
function entry(over: Record<string, unknown> = {}, id = 'azure'): SignerConfig {
  const config = {
    auth_type: 'client_secret',
    tenant_id: plain(sim.tenantId),
    client_id: plain(sim.clientId),
    client_secret: plain(sim.clientSecret),
    vault_url: sim.url,
    key_name: sim.keys.secp256k1,
    ...over,
  };
  return { id, type: 'azure_key_vault', config } as unknown as SignerConfig;
}

/** The key's JWK, read through the vault's REST API with a token the authority issued for the right secret. */
async function jwk(name = sim.keys.secp256k1): Promise<{ kid: string; x: string; y: string }> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: sim.clientId,
    client_secret: sim.clientSecret,
    scope: 'https://vault.azure.net/.default',
  });
  const { access_token } = await (
    await fetch(`${sim.url}/${sim.tenantId}/oauth2/v2.0/token`, { method: 'POST', body: form })
  ).json();
  return (
    await (
      await fetch(`${sim.url}/keys/${name}?api-version=7.4`, { headers: { authorization: `Bearer ${access_token}` } })
    ).json()
  ).key;
}
const keyId = async () => (await jwk()).kid;
async function keyAddress(): Promise<string> {
  const key = await jwk();
  return evmAddressFromPublicKey(
    Buffer.concat([Buffer.from([4]), Buffer.from(key.x, 'base64url'), Buffer.from(key.y, 'base64url')]),
  );
}

describe('with the right credentials', () => {
  test("the address is the vault key's, and each digest is signed r‖s‖v with s low, recovering to it", async () => {
    const signer = await createSigner(entry(), 'evm', { env: env() });
    assert.equal(signer.address, await keyAddress());
    // The simulator answers high s half the time: every answer must come out low-s and recover.
    for (let i = 0; i < 12; i++) {
      const digest = randomBytes(32);
      const sig = await signer.signEvmDigest!(digest);
      assert.equal(sig.length, 65);
      assert.ok(BigInt(toHex(sig.subarray(32, 64))) <= HALF_N, 's is low');
      assert.ok(sig[64] === 27 || sig[64] === 28);
      assert.equal(await recoverAddress({ hash: toHex(digest), signature: toHex(sig) }), signer.address);
    }
  });

  test('workload identity: the federated token file is exchanged for a token; another token is refused', async (t) => {
    const workload = {
      auth_type: 'workload_identity',
      client_secret: undefined,
      federated_token_file: plain(sim.federatedTokenFile),
    };
    assert.equal((await createSigner(entry(workload), 'evm', { env: env() })).address, await keyAddress());
    const dir = mkdtempSync(path.join(tmpdir(), 'azure-wi-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const forged = path.join(dir, 'token');
    writeFileSync(forged, randomBytes(48).toString('base64url'));
    await assert.rejects(
      createSigner(entry({ ...workload, federated_token_file: undefined }), 'evm', {
        env: env({ AZURE_FEDERATED_TOKEN_FILE: forged }),
      }),
      /signer 'azure': .*refused by Microsoft Entra ID \(invalid_client AADSTS700211: no federated identity matches the token/,
    );
    // A token file that is not there, or not a file, is refused at creation, naming the signer and the path.
    const calls = sim.calls.token ?? 0;
    await assert.rejects(
      createSigner(entry({ ...workload, federated_token_file: plain(path.join(dir, 'absent')) }), 'evm', {
        env: env(),
      }),
      { message: `signer 'azure': the federated token file ${path.join(dir, 'absent')} does not exist` },
    );
    await assert.rejects(
      createSigner(entry({ ...workload, federated_token_file: plain(dir) }), 'evm', { env: env() }),
      { message: `signer 'azure': the federated token file ${dir} is a directory, not a regular file` },
    );
    assert.equal(sim.calls.token ?? 0, calls, 'refused before any token request');
  });

  test('a pinned key_version is used; a missing key or version, a P-256 key and a non-EVM relayer are refused naming the signer', async () => {
    const version = /\/keys\/[^/]+\/([0-9a-f]+)$/.exec(await keyId())![1]!;
    assert.equal(
      (await createSigner(entry({ key_version: version }), 'evm', { env: env() })).address,
      await keyAddress(),
    );
    await assert.rejects(
      createSigner(entry({ key_name: 'absent' }), 'evm', { env: env() }),
      /^RemoteSignerError: signer 'azure': Azure Key Vault get key \(key 'absent'\): the key was not found \(check vault_url, key_name and key_version\)$/,
    );
    await assert.rejects(
      createSigner(entry({ key_version: '0123456789abcdef0123456789abcdef' }), 'evm', { env: env() }),
      /the key was not found/,
    );
    await assert.rejects(
      createSigner(entry({ key_name: sim.keys.p256 }), 'evm', { env: env() }),
      /^RemoteSignerError: signer 'azure': Azure Key Vault key 'p256-key' is EC-HSM P-256; an evm signer needs an EC key on curve P-256K \(secp256k1\)$/,
    );
    await assert.rejects(
      createSigner(entry(), 'solana', { env: env() }),
      /signer 'azure': azure_key_vault signs for EVM networks only/,
    );
  });

  test('a throttled vault at send time (429, retried by the client) fails the sign naming the signer and the cause', async () => {
    const signer = await createSigner(entry({}, 'throttled'), 'evm', { env: env() });
    sim.failNext('sign', 'throttle', 10);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /^RemoteSignerError: signer 'throttled': Azure Key Vault sign \(key 'evm-signer'\): throttled by Azure Key Vault \(HTTP 429\)$/,
    );
    sim.clearFaults();
  });

  test('a vault that does not answer a sign fails it within SIGNER_TIMEOUT_MS, naming the signer; the next sign works', async () => {
    const signer = await createSigner(entry({}, 'slow'), 'evm', { env: env({ SIGNER_TIMEOUT_MS: '800' }) });
    sim.failNext('sign', 'hang', 1);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /^RemoteSignerError: signer 'slow': Azure Key Vault sign \(key 'evm-signer'\): no answer within 800 ms \(timed out\)$/,
    );
    assert.equal((await signer.signEvmDigest!(randomBytes(32))).length, 65);
  });
});

describe('with wrong credentials', () => {
  test('a wrong client secret is refused by the authority and told as such, without the secret', async () => {
    const before = sim.refused;
    const wrong = randomBytes(30).toString('base64url');
    await assert.rejects(createSigner(entry({ client_secret: plain(wrong) }), 'evm', { env: env() }), (err: Error) => {
      assert.match(
        err.message,
        /^signer 'azure': Azure Key Vault get key \(key 'evm-signer'\): the credentials were refused by Microsoft Entra ID \(invalid_client AADSTS7000215: the client secret is wrong \(check client_secret: the secret value, not its id\)\)/,
      );
      assert.ok(!err.message.includes(wrong) && !err.message.includes(sim.clientSecret));
      assert.ok(!err.message.includes('\n') && !/\bat .*\.js:\d+/.test(err.message), 'one line, no stack');
      return true;
    });
    assert.ok(sim.refused > before, 'the authority checked the secret and refused it');
  });

  test('an unknown client id and an unknown tenant are refused', async () => {
    await assert.rejects(
      createSigner(entry({ client_id: plain('00000000-0000-0000-0000-000000000000') }), 'evm', { env: env() }),
      /refused by Microsoft Entra ID \(unauthorized_client AADSTS700016: no application with this client_id in the tenant/,
    );
    await assert.rejects(
      createSigner(entry({ tenant_id: plain('00000000-0000-0000-0000-000000000000') }), 'evm', { env: env() }),
      /^RemoteSignerError: signer 'azure': Azure Key Vault get key \(key 'evm-signer'\): the vault's authentication challenge names another tenant than tenant_id \(check tenant_id and vault_url\)$/,
    );
  });

  test('the vault checks the bearer token of every call: none, or one the authority never issued, gets 401 and the challenge', async () => {
    for (const authorization of [undefined, `Bearer ${randomBytes(32).toString('base64url')}`]) {
      const res = await fetch(`${sim.url}/keys/${sim.keys.secp256k1}?api-version=7.4`, {
        headers: authorization ? { authorization } : {},
      });
      assert.equal(res.status, 401);
      assert.match(
        res.headers.get('www-authenticate') ?? '',
        /^Bearer authorization="https:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+", resource="https:\/\/vault\.azure\.net"$/,
      );
      assert.equal((await res.json()).error.code, 'Unauthorized');
    }
    // Through the client: a credential that forges its token is refused by the vault, not by the authority.
    const { KeyClient } = await import('@azure/keyvault-keys');
    const forging = {
      getToken: async () => ({
        token: randomBytes(32).toString('base64url'),
        expiresOnTimestamp: Date.now() + 3_600_000,
      }),
    };
    const client = new KeyClient(sim.url, forging, {
      disableChallengeResourceVerification: true,
      retryOptions: { maxRetries: 0 },
    });
    await assert.rejects(client.getKey(sim.keys.secp256k1), (err: { statusCode?: number }) => err.statusCode === 401);
  });

  test('an unreachable vault, and an unreachable authority, are told as such', async () => {
    await assert.rejects(
      createSigner(entry({ vault_url: 'https://127.0.0.1:9' }), 'evm', { env: env() }),
      /signer 'azure': Azure Key Vault get key .*: unreachable \(ECONNREFUSED\)$/,
    );
    await assert.rejects(
      createSigner(entry(), 'evm', { env: env({ AZURE_AUTHORITY_HOST: 'https://127.0.0.1:9' }) }),
      /signer 'azure': Azure Key Vault get key .*: the authority \(AZURE_AUTHORITY_HOST, or login\.microsoftonline\.com\) could not be reached/,
    );
  });
});

describe('through the service', () => {
  test("a relayer with an azure_key_vault signer has the key's address, and its EVM send is confirmed on anvil", async (t) => {
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const s = await build(t, {
      // The authority as an operator's AZURE_AUTHORITY_HOST would name it.
      env: { AZURE_AUTHORITY_HOST: sim.url },
      config: {
        networks: [anvil.network('anvil')],
        signers: [{ id: 'azure-evm', type: 'azure_key_vault', config: entry().config }],
        relayers: [{ id: 'azure-relayer', name: 'azure key vault', network: 'anvil', signer_id: 'azure-evm' }],
        notifications: [],
        plugins: [],
      } as never,
    });
    const relayer = await s.request('GET', '/api/v1/relayers/azure-relayer');
    assert.equal(relayer.status, 200, relayer.text);
    const address = await keyAddress();
    assert.equal(relayer.body.data.address.toLowerCase(), address.toLowerCase());
    await anvil.rpc('anvil_setBalance', [address, '0x56bc75e2d63100000']);
    const to = '0x00000000000000000000000000000000000000a3';
    await sendIsMinedFrom(s, anvil, 'azure-relayer', address, to);
    assert.ok(!s.rawLogs().includes(sim.clientSecret), 'the client secret is never logged');
  });
});

/** An empty plugins folder: these starts are about the signer, so the runtime compiles none of the shipped plugins. */
function noPlugins(dir: string): string {
  mkdirSync(path.join(dir, 'plugins'), { recursive: true });
  return path.join(dir, 'plugins');
}

describe('the service as a child process, trusting the simulator as an operator would (NODE_EXTRA_CA_CERTS)', () => {
  test("the right secret gives the relayer the key's address; a wrong one stops the start with one line naming the signer and the cause", async (t) => {
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const dir = mkdtempSync(path.join(tmpdir(), 'azure-service-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const configPath = path.join(dir, 'config.json');
    const fromEnv = (value: string) => ({ type: 'env', value });
    const config = {
      ...(entry().config as object),
      tenant_id: fromEnv('AZURE_TENANT_ID'),
      client_id: fromEnv('AZURE_CLIENT_ID'),
      client_secret: fromEnv('AZURE_CLIENT_SECRET'),
      key_version: null,
    };
    writeFileSync(
      configPath,
      JSON.stringify({
        networks: [anvil.network('anvil')],
        signers: [{ id: 'azure-evm', type: 'azure_key_vault', config }],
        relayers: [{ id: 'az', name: 'azure', network: 'anvil', signer_id: 'azure-evm' }],
        notifications: [],
        plugins: [],
      }),
    );
    const start = (secret: string, data: string) =>
      startService({
        API_KEY,
        DATA_DIR: path.join(dir, data),
        CONFIG_PATH: configPath,
        PLUGINS_DIR: noPlugins(dir),
        NODE_EXTRA_CA_CERTS: sim.caFile,
        AZURE_AUTHORITY_HOST: sim.url,
        AZURE_TENANT_ID: sim.tenantId,
        AZURE_CLIENT_ID: sim.clientId,
        AZURE_CLIENT_SECRET: secret,
      });

    const good = start(sim.clientSecret, 'good');
    t.after(() => good.killHard());
    const url = await good.listening;
    const relayer = await (
      await fetch(`${url}/api/v1/relayers/az`, { headers: { authorization: `Bearer ${API_KEY}` } })
    ).json();
    assert.equal(relayer.data.address, await keyAddress());
    assert.equal(await good.stop(), 0);
    assert.ok(!good.output().includes(sim.clientSecret), 'the client secret is never logged');

    const wrong = randomBytes(30).toString('base64url');
    const bad = start(wrong, 'bad');
    t.after(() => bad.killHard());
    await assert.rejects(bad.listening, /service exited \(1\) before listening/);
    assert.match(
      bad.output(),
      /relayer 'az': 'signer_id': signer 'azure-evm': Azure Key Vault get key \(key 'evm-signer'\): the credentials were refused by Microsoft Entra ID \(invalid_client AADSTS7000215: the client secret is wrong \(check client_secret: the secret value, not its id\)\)/,
    );
    assert.ok(!bad.output().includes(wrong) && !bad.output().includes(sim.clientSecret), 'no secret in the output');
  });
});

describe("managed identity, through App Service's identity endpoint (simulated), in the service as a child process", () => {
  test("the system-assigned and a user-assigned identity give the relayer the key's address and sign a send; a wrong IDENTITY_HEADER stops the start naming the signer", async (t) => {
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const dir = mkdtempSync(path.join(tmpdir(), 'azure-managed-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const address = await keyAddress();
    await anvil.rpc('anvil_setBalance', [address, '0x56bc75e2d63100000']);
    // As on App Service: the platform sets IDENTITY_ENDPOINT and IDENTITY_HEADER; the config names no credential.
    const start = (name: string, identity: Record<string, unknown>, header: string) => {
      const configPath = path.join(dir, `${name}.json`);
      const config = { auth_type: 'managed_identity', vault_url: sim.url, key_name: sim.keys.secp256k1, ...identity };
      writeFileSync(
        configPath,
        JSON.stringify({
          networks: [anvil.network('anvil')],
          signers: [{ id: 'azure-mi', type: 'azure_key_vault', config }],
          relayers: [{ id: 'az', name: 'azure', network: 'anvil', signer_id: 'azure-mi' }],
          notifications: [],
          plugins: [],
        }),
      );
      return startService({
        API_KEY,
        DATA_DIR: path.join(dir, name),
        CONFIG_PATH: configPath,
        PLUGINS_DIR: noPlugins(dir),
        NODE_EXTRA_CA_CERTS: sim.caFile,
        IDENTITY_ENDPOINT: sim.identityEndpoint,
        IDENTITY_HEADER: header,
        AZURE_CLIENT_ID: sim.managedClientId,
      });
    };
    const auth = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const before = sim.calls.managedIdentity ?? 0;
    for (const [name, identity] of [
      ['system', {}],
      ['user', { client_id: { type: 'env', value: 'AZURE_CLIENT_ID' } }],
    ] as const) {
      const svc = start(name, identity, sim.identityHeader);
      t.after(() => svc.killHard());
      const url = await svc.listening;
      const relayer = await (await fetch(`${url}/api/v1/relayers/az`, { headers: auth })).json();
      assert.equal(relayer.data.address, address, name);
      const sent = await (
        await fetch(`${url}/api/v1/relayers/az/transactions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            to: '0x00000000000000000000000000000000000000a4',
            value: 1,
            gas_limit: 21000,
            speed: 'fast',
          }),
        })
      ).json();
      assert.equal(sent.success, true, JSON.stringify(sent));
      const hash = await eventually(
        async () =>
          ((await (await fetch(`${url}/api/v1/relayers/az/transactions/${sent.data.id}`, { headers: auth })).json())
            .data.hash as string | undefined) ?? undefined,
      );
      assert.ok(hash, `${name}: the send was signed and broadcast`);
      // The record holds the hash once signed; the broadcast comes after it, later on a loaded machine.
      const tx = await eventually(
        async () => ((await anvil.rpc('eth_getTransactionByHash', [hash])) as { from: string } | null) ?? undefined,
      );
      assert.equal(
        tx?.from.toLowerCase(),
        address.toLowerCase(),
        `${name}: the chain recovers the vault key's address`,
      );
      assert.equal(await svc.stop(), 0);
      assert.ok(!svc.output().includes(sim.identityHeader), 'the identity header is never logged');
    }
    assert.ok((sim.calls.managedIdentity ?? 0) > before, 'the tokens came from the identity endpoint');

    const wrong = randomBytes(24).toString('base64url');
    const bad = start('wrong-header', {}, wrong);
    t.after(() => bad.killHard());
    await assert.rejects(bad.listening, /service exited \(1\) before listening/);
    assert.match(
      bad.output(),
      /relayer 'az': 'signer_id': signer 'azure-mi': Azure Key Vault get key \(key 'evm-signer'\): the managed identity endpoint refused the token request \(check IDENTITY_ENDPOINT and IDENTITY_HEADER, and client_id for a user-assigned identity\)"/,
    );
    assert.ok(!bad.output().includes(wrong) && !bad.output().includes(sim.identityHeader), 'no secret in the output');
  });
});
