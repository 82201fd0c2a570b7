// The aws_kms signer through the official AWS client against the simulated KMS (test/support/simulators/aws-kms.ts),
// which checks every request's SigV4 signature: addresses from GetPublicKey, EVM signatures made r‖s‖v, Ed25519
// signatures that verify, and each failure (credentials, key, curve, reach, throttling, time) told naming the signer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import { recoverAddress, toHex } from 'viem';
import type { SignerConfig } from '../../src/config/config.ts';
import { evmAddressFromPublicKey } from '../../src/signers/evm-signature.ts';
import { createSigner as adapter } from '../../src/signers/aws_kms/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { startAwsKmsSim, type AwsKmsSim } from '../support/simulators/aws-kms.ts';
import { startAnvil } from '../support/anvil.ts';
import { build } from '../helper.ts';
import { sendIsMinedFrom } from './support.ts';

const createSigner = fromEnv(adapter);

const HALF_N = BigInt('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

let sim: AwsKmsSim;
before(async () => {
  sim = await startAwsKmsSim();
});
after(() => sim.stop());

/** The environment an operator gives the service: the SDK's own variables (the default chain reads process.env). */
function useEnv(vars: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  return () => {
    for (const k of Object.keys(vars)) delete process.env[k];
    Object.assign(process.env, saved);
  };
}
const goodEnv = () => ({
  AWS_ACCESS_KEY_ID: sim.accessKeyId,
  AWS_SECRET_ACCESS_KEY: sim.secretAccessKey,
  AWS_ENDPOINT_URL_KMS: sim.url,
});
const entry = (keyId: string, id = 'kms'): SignerConfig =>
  ({ id, type: 'aws_kms', config: { region: sim.region, key_id: keyId } }) as unknown as SignerConfig;

describe('with the right credentials', () => {
  let restore: () => void;
  before(() => (restore = useEnv(goodEnv())));
  after(() => restore());

  test("EVM: the address is the key's, and each digest is signed r‖s‖v with s low, recovering to it", async () => {
    const signer = await createSigner(entry(sim.keys.ECC_SECG_P256K1), 'evm', { env: process.env });
    const spki = await publicKeyOf(sim.keys.ECC_SECG_P256K1);
    assert.equal(signer.address, evmAddressFromPublicKey(spki));
    // The simulator answers high s half the time, as KMS does: every answer must come out low-s and recover.
    for (let i = 0; i < 12; i++) {
      const digest = randomBytes(32);
      const sig = await signer.signEvmDigest!(digest);
      assert.equal(sig.length, 65);
      assert.ok(BigInt(toHex(sig.subarray(32, 64))) <= HALF_N, 's is low');
      assert.ok(sig[64] === 27 || sig[64] === 28);
      assert.equal(await recoverAddress({ hash: toHex(digest), signature: toHex(sig) }), signer.address);
    }
  });

  test("Solana and Stellar: the address is the Ed25519 key's, and signatures verify against it", async () => {
    const spki = await publicKeyOf(sim.keys.ECC_NIST_EDWARDS25519);
    const raw = spki.subarray(12);
    for (const networkType of ['solana', 'stellar'] as const) {
      const signer = await createSigner(entry(sim.keys.ECC_NIST_EDWARDS25519), networkType, { env: process.env });
      assert.equal(
        signer.address,
        networkType === 'solana' ? getAddressDecoder().decode(raw) : StrKey.encodeEd25519PublicKey(Buffer.from(raw)),
      );
      const message = randomBytes(200);
      const signature = await signer.ed25519!.sign(message);
      assert.equal(signature.length, 64);
      assert.ok(
        verify(null, message, createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }), signature),
      );
    }
  });

  test('a missing key, and a key of the wrong curve, are refused naming the signer', async () => {
    await assert.rejects(
      createSigner(entry('00000000-0000-0000-0000-000000000000'), 'evm', { env: process.env }),
      /^RemoteSignerError: signer 'kms': AWS KMS GetPublicKey .*: the key was not found/,
    );
    await assert.rejects(
      createSigner(entry(sim.keys.ECC_NIST_P256), 'evm', { env: process.env }),
      /signer 'kms': AWS KMS key '.*' is ECC_NIST_P256 .*needs an ECC_SECG_P256K1 key/,
    );
    await assert.rejects(
      createSigner(entry(sim.keys.ECC_SECG_P256K1), 'solana', { env: process.env }),
      /signer 'kms': .* is ECC_SECG_P256K1 .*needs an ECC_NIST_EDWARDS25519 key/,
    );
  });

  test('a throttled KMS at send time fails the sign naming the signer and the cause', async () => {
    const signer = await createSigner(entry(sim.keys.ECC_SECG_P256K1, 'throttled'), 'evm', { env: process.env });
    sim.failNext('Sign', 'throttle', 10);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /signer 'throttled': AWS KMS Sign .*: throttled by AWS KMS \(ThrottlingException, 3 attempts\)/,
    );
    sim.clearFaults();
  });

  test('a KMS that does not answer a sign fails it within SIGNER_TIMEOUT_MS, naming the signer; the next sign works', async () => {
    const signer = await createSigner(entry(sim.keys.ECC_SECG_P256K1, 'slow'), 'evm', {
      env: { ...process.env, SIGNER_TIMEOUT_MS: '500' },
    });
    sim.failNext('Sign', 'hang', 1);
    await assert.rejects(
      signer.signEvmDigest!(randomBytes(32)),
      /signer 'slow': AWS KMS Sign .*: no answer within 500 ms \(timed out\)/,
    );
    assert.equal((await signer.signEvmDigest!(randomBytes(32))).length, 65);
  });
});

describe('with wrong credentials', () => {
  test('a wrong secret key is refused by the KMS (SigV4 recomputed) and told as such', async () => {
    const restore = useEnv({ ...goodEnv(), AWS_SECRET_ACCESS_KEY: randomBytes(30).toString('base64') });
    try {
      const before = sim.refused;
      await assert.rejects(
        createSigner(entry(sim.keys.ECC_SECG_P256K1), 'evm', { env: process.env }),
        /^RemoteSignerError: signer 'kms': AWS KMS GetPublicKey \(key '.*'\): the credentials were refused \(InvalidSignatureException: check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the region\)$/,
      );
      assert.ok(sim.refused > before);
    } finally {
      restore();
    }
  });

  test('an unknown access key id is refused', async () => {
    const restore = useEnv({ ...goodEnv(), AWS_ACCESS_KEY_ID: 'AKIAUNKNOWNUNKNOWN00' });
    try {
      await assert.rejects(
        createSigner(entry(sim.keys.ECC_SECG_P256K1), 'evm', { env: process.env }),
        /the credentials were refused \(UnrecognizedClientException/,
      );
    } finally {
      restore();
    }
  });

  test('an unreachable KMS is told as unreachable', async () => {
    const restore = useEnv({ ...goodEnv(), AWS_ENDPOINT_URL_KMS: 'http://127.0.0.1:9' });
    try {
      await assert.rejects(
        createSigner(entry(sim.keys.ECC_SECG_P256K1), 'evm', { env: process.env }),
        /signer 'kms': AWS KMS GetPublicKey .*: AWS KMS unreachable \(ECONNREFUSED\)/,
      );
    } finally {
      restore();
    }
  });
});

/** The public key (SPKI DER) the simulator holds, read through its own API with the right credentials. */
async function publicKeyOf(keyId: string): Promise<Uint8Array> {
  const { KMSClient, GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const client = new KMSClient({
    region: sim.region,
    endpoint: sim.url,
    credentials: { accessKeyId: sim.accessKeyId, secretAccessKey: sim.secretAccessKey },
  });
  return (await client.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey!;
}

describe('through the service', () => {
  test("a relayer with an aws_kms signer has the key's address, and its EVM send is confirmed on anvil", async (t) => {
    const restore = useEnv(goodEnv());
    t.after(restore);
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const s = await build(t, {
      config: {
        networks: [anvil.network('anvil')],
        signers: [{ id: 'aws-evm', type: 'aws_kms', config: { region: sim.region, key_id: sim.keys.ECC_SECG_P256K1 } }],
        relayers: [{ id: 'kms-relayer', name: 'aws kms', network: 'anvil', signer_id: 'aws-evm' }],
        notifications: [],
        plugins: [],
      } as never,
    });
    const relayer = await s.request('GET', '/api/v1/relayers/kms-relayer');
    assert.equal(relayer.status, 200, relayer.text);
    const address = evmAddressFromPublicKey(await publicKeyOf(sim.keys.ECC_SECG_P256K1));
    assert.equal(relayer.body.data.address.toLowerCase(), address.toLowerCase());
    await anvil.rpc('anvil_setBalance', [address, '0x56bc75e2d63100000']);
    const to = '0x00000000000000000000000000000000000000a2';
    await sendIsMinedFrom(s, anvil, 'kms-relayer', address, to);
    assert.ok(!s.rawLogs().includes(sim.secretAccessKey), 'the secret access key is never logged');
  });
});
