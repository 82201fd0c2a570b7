// The google_cloud_kms signer through Google's official client against the simulated Cloud KMS
// (test/support/simulators/google-kms.ts), which verifies the service account's signed JWT on every request:
// addresses from getPublicKey, EVM signatures made r‖s‖v, Ed25519 signatures that verify, and each failure
// (credentials, permission, key, curve, reach, throttling, time) told naming the signer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import { recoverAddress, toHex } from 'viem';
import type { SignerConfig } from '../../src/config/config.ts';
import { evmAddressFromPublicKey } from '../../src/signers/evm-signature.ts';
import { createSigner as adapter } from '../../src/signers/google_cloud_kms/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { startGoogleKmsSim, type GoogleKmsSim, type ServiceAccount } from '../support/simulators/google-kms.ts';
import { startAnvil } from '../support/anvil.ts';
import { build } from '../helper.ts';
import { sendIsMinedFrom } from './support.ts';

const createSigner = fromEnv(adapter);

const HALF_N = BigInt('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

let sim: GoogleKmsSim;
let env: NodeJS.ProcessEnv;
before(async () => {
  sim = await startGoogleKmsSim();
  env = { GOOGLE_CLOUD_KMS_ENDPOINT: sim.url };
});
after(() => sim.stop());

/** The entry as the config loader leaves it: secrets `{type: plain}`, defaults filled in. */
function entry(keyId: string, options: { id?: string; account?: ServiceAccount; project?: string } = {}): SignerConfig {
  const account = options.account ?? sim.serviceAccount;
  const plain = (value: string) => ({ type: 'plain', value });
  return {
    id: options.id ?? 'gcp',
    type: 'google_cloud_kms',
    config: {
      service_account: {
        project_id: options.project ?? sim.project,
        private_key_id: plain(account.private_key_id),
        private_key: plain(account.private_key),
        client_email: plain(account.client_email),
        client_id: account.client_id,
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: account.token_uri,
        universe_domain: 'googleapis.com',
      },
      key: { location: sim.location, key_ring_id: sim.keyRing, key_id: keyId, key_version: 1 },
    },
  } as unknown as SignerConfig;
}

const spkiOf = (pem: string) => createPublicKey(pem).export({ format: 'der', type: 'spki' });

describe("with the service account of the key's project", () => {
  test("EVM: the address is the key's, and each digest is signed r‖s‖v with s low, recovering to it", async () => {
    const signer = await createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256), 'evm', { env });
    assert.equal(signer.address, evmAddressFromPublicKey(spkiOf(sim.publicKeys.EC_SIGN_SECP256K1_SHA256)));
    for (let i = 0; i < 12; i++) {
      const digest = randomBytes(32);
      const sig = await signer.signEvmDigest!(digest);
      assert.ok(BigInt(toHex(sig.subarray(32, 64))) <= HALF_N, 's is low');
      assert.equal(await recoverAddress({ hash: toHex(digest), signature: toHex(sig) }), signer.address);
    }
    assert.equal(sim.calls.asymmetricSign, 12);
  });

  test("Solana and Stellar: the address is the Ed25519 key's, and signatures verify against it", async () => {
    for (const networkType of ['solana', 'stellar'] as const) {
      const signer = await createSigner(entry(sim.keys.EC_SIGN_ED25519), networkType, { env });
      const raw = spkiOf(sim.publicKeys.EC_SIGN_ED25519).subarray(12);
      assert.equal(
        signer.address,
        networkType === 'solana' ? getAddressDecoder().decode(raw) : StrKey.encodeEd25519PublicKey(raw),
      );
      const message = randomBytes(300);
      const signature = await signer.ed25519!.sign(message);
      assert.ok(verify(null, message, createPublicKey(sim.publicKeys.EC_SIGN_ED25519), signature));
    }
  });

  test('a missing key version, a key of the wrong algorithm, and a key of another project are refused naming the signer', async () => {
    await assert.rejects(
      createSigner(entry('no-such-key'), 'evm', { env }),
      /^RemoteSignerError: signer 'gcp': Google Cloud KMS getPublicKey \(projects\/.*\/no-such-key\/.*\): the key version was not found/,
    );
    await assert.rejects(
      createSigner(entry(sim.keys.EC_SIGN_P256_SHA256), 'evm', { env }),
      /signer 'gcp': Google Cloud KMS key .* is EC_SIGN_P256_SHA256; a evm signer needs an EC_SIGN_SECP256K1_SHA256 key/,
    );
    await assert.rejects(
      createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256), 'stellar', { env }),
      /needs an EC_SIGN_ED25519 key/,
    );
    await assert.rejects(
      createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { account: sim.otherProjectAccount }), 'evm', { env }),
      /signer 'gcp': .*: the service account may not use this key \(PERMISSION_DENIED\)/,
    );
  });

  test('a throttled KMS at send time fails the sign naming the signer and the cause', async () => {
    const signer = await createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { id: 'throttled' }), 'evm', { env });
    sim.failNext('asymmetricSign', 'throttle', 1);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /signer 'throttled': Google Cloud KMS asymmetricSign .*: throttled by Google Cloud KMS \(RESOURCE_EXHAUSTED\)/,
    );
    sim.clearFaults();
  });

  test('a KMS that does not answer a sign fails it within SIGNER_TIMEOUT_MS, naming the signer; the next sign works', async () => {
    const signer = await createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { id: 'slow' }), 'evm', {
      env: { ...env, SIGNER_TIMEOUT_MS: '500' },
    });
    sim.failNext('asymmetricSign', 'hang', 1);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /signer 'slow': Google Cloud KMS asymmetricSign .*: (no answer within 500 ms \(timed out\)|Google Cloud KMS did not answer in time)/,
    );
    assert.equal((await signer.signEvmDigest!(randomBytes(32))).length, 65);
  });
});

describe('with wrong credentials', () => {
  test("a private key that is not the account's is refused by the KMS (the JWT does not verify) and told as such", async () => {
    const impostor = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const before = sim.refused;
    await assert.rejects(
      createSigner(
        entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { account: { ...sim.serviceAccount, private_key: impostor } }),
        'evm',
        { env },
      ),
      /^RemoteSignerError: signer 'gcp': Google Cloud KMS getPublicKey \(.*\): the service account credentials were refused \(UNAUTHENTICATED\)$/,
    );
    assert.ok(sim.refused > before);
  });

  test('an unknown private_key_id is refused', async () => {
    await assert.rejects(
      createSigner(
        entry(sim.keys.EC_SIGN_SECP256K1_SHA256, {
          account: { ...sim.serviceAccount, private_key_id: 'f'.repeat(40) },
        }),
        'evm',
        { env },
      ),
      /credentials were refused \(UNAUTHENTICATED\)/,
    );
  });

  test('a private_key that is no key at all, or no RSA key, is refused at creation, naming the signer and the field, without quoting it', async () => {
    const before = sim.refused;
    const err = await createSigner(
      entry(sim.keys.EC_SIGN_SECP256K1_SHA256, {
        account: { ...sim.serviceAccount, private_key: 'not-a-pem-secret-value' },
      }),
      'evm',
      { env },
    ).catch((e: Error) => e);
    assert.ok(err instanceof Error);
    assert.match(err.message, /^signer 'gcp': 'service_account.private_key' is not a private key in PEM/);
    assert.doesNotMatch(err.message, /not-a-pem-secret-value/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    await assert.rejects(
      createSigner(
        entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { account: { ...sim.serviceAccount, private_key: ec } }),
        'evm',
        { env },
      ),
      /^Error: signer 'gcp': 'service_account.private_key' is an ec key; a Google service account key is RSA/,
    );
    await assert.rejects(
      createSigner(
        entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { account: { ...sim.serviceAccount, client_email: 'nobody' } }),
        'evm',
        { env },
      ),
      /^Error: signer 'gcp': 'service_account.client_email' must be the service account's email/,
    );
    assert.equal(sim.refused, before, 'refused before any request');
  });

  test('a private_key written on one line with literal \\n (as in a .env) is read as the PEM', async () => {
    const oneLine = sim.serviceAccount.private_key.replace(/\n/g, '\\n');
    const signer = await createSigner(
      entry(sim.keys.EC_SIGN_SECP256K1_SHA256, { account: { ...sim.serviceAccount, private_key: oneLine } }),
      'evm',
      { env },
    );
    assert.equal(signer.address, evmAddressFromPublicKey(spkiOf(sim.publicKeys.EC_SIGN_SECP256K1_SHA256)));
  });

  test('an unreachable KMS is told as unreachable', async () => {
    await assert.rejects(
      createSigner(entry(sim.keys.EC_SIGN_SECP256K1_SHA256), 'evm', {
        env: { GOOGLE_CLOUD_KMS_ENDPOINT: 'http://127.0.0.1:9' },
      }),
      /signer 'gcp': Google Cloud KMS getPublicKey .*: Google Cloud KMS unreachable \(ECONNREFUSED\)/,
    );
  });
});

describe('through the service', () => {
  test("a relayer with a google_cloud_kms signer (secrets from the environment) has the key's address, and its EVM send is confirmed on anvil", async (t) => {
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const account = sim.serviceAccount;
    const s = await build(t, {
      // The endpoint as an operator's GOOGLE_CLOUD_KMS_ENDPOINT would name it; the secrets from the environment.
      env: {
        GOOGLE_CLOUD_KMS_ENDPOINT: sim.url,
        GCP_PRIVATE_KEY_ID: account.private_key_id,
        GCP_PRIVATE_KEY: account.private_key,
        GCP_CLIENT_EMAIL: account.client_email,
      },
      config: {
        networks: [anvil.network('anvil')],
        signers: [
          {
            id: 'gcp-evm',
            type: 'google_cloud_kms',
            config: {
              service_account: {
                project_id: sim.project,
                private_key_id: { type: 'env', value: 'GCP_PRIVATE_KEY_ID' },
                private_key: { type: 'env', value: 'GCP_PRIVATE_KEY' },
                client_email: { type: 'env', value: 'GCP_CLIENT_EMAIL' },
                client_id: account.client_id,
              },
              key: {
                location: sim.location,
                key_ring_id: sim.keyRing,
                key_id: sim.keys.EC_SIGN_SECP256K1_SHA256,
                key_version: 1,
              },
            },
          },
        ],
        relayers: [{ id: 'gcp-relayer', name: 'gcp kms', network: 'anvil', signer_id: 'gcp-evm' }],
        notifications: [],
        plugins: [],
      } as never,
    });
    const relayer = await s.request('GET', '/api/v1/relayers/gcp-relayer');
    assert.equal(relayer.status, 200, relayer.text);
    const address = evmAddressFromPublicKey(spkiOf(sim.publicKeys.EC_SIGN_SECP256K1_SHA256));
    assert.equal(relayer.body.data.address.toLowerCase(), address.toLowerCase());
    await anvil.rpc('anvil_setBalance', [address, '0x56bc75e2d63100000']);
    const to = '0x00000000000000000000000000000000000000a3';
    await sendIsMinedFrom(s, anvil, 'gcp-relayer', address, to);
    const logs = s.rawLogs();
    assert.ok(
      !logs.includes(account.private_key.split('\n')[1]!) && !logs.includes(account.private_key_id),
      'the service account key is never logged',
    );
  });
});
