// Solana and Stellar signer keys in the config: each development form derives the address, checks a configured one, and signs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { getAddressEncoder, getBase58Decoder, type Address } from '@solana/kit';
import { Keypair } from '@stellar/stellar-base';
import { resolveSigner } from '../../../src/signers/local/resolve.ts';
import { verifySignature } from '../../../src/chains/solana/wire.ts';

const signer = (private_key: string, extra: Record<string, string> = {}) => ({
  id: 's',
  type: 'local' as const,
  private_key,
  ...extra,
});

test('Solana keys: a hex seed, a base58 seed, a base58 64-byte secret key and its JSON array all give the same address, and it signs', async () => {
  const seed = randomBytes(32);
  const fromHex = resolveSigner(signer(seed.toString('hex')), 'solana', {});
  const publicKey = getAddressEncoder().encode(fromHex.address as Address);
  const secret = Buffer.concat([seed, Buffer.from(publicKey)]);
  for (const form of [
    getBase58Decoder().decode(seed),
    getBase58Decoder().decode(secret),
    JSON.stringify([...secret]),
    `0x${seed.toString('hex')}`,
  ]) {
    assert.equal(resolveSigner(signer(form), 'solana', {}).address, fromHex.address, form);
  }
  const message = randomBytes(100);
  assert.ok(verifySignature(fromHex.address, message, await fromHex.ed25519!.sign(message)));
  assert.equal(
    resolveSigner({ id: 's', type: 'local', private_key_env: 'SOL_KEY' }, 'solana', { SOL_KEY: seed.toString('hex') })
      .address,
    fromHex.address,
  );
});

test('Solana keys: a wrong length, a secret key whose halves disagree, or a mismatching address stop the start', () => {
  assert.throws(
    () => resolveSigner(signer(getBase58Decoder().decode(randomBytes(16))), 'solana', {}),
    /signer 's': the Solana key has 16 bytes/,
  );
  assert.throws(() => resolveSigner(signer('not a key!'), 'solana', {}), /the Solana key must be a base58 secret key/);
  const bad = Buffer.concat([randomBytes(32), randomBytes(32)]);
  assert.throws(
    () => resolveSigner(signer(JSON.stringify([...bad])), 'solana', {}),
    /public half does not match its seed/,
  );
  assert.throws(
    () =>
      resolveSigner(
        signer(randomBytes(32).toString('hex'), { address: '11111111111111111111111111111111' }),
        'solana',
        {},
      ),
    /does not match the key's address/,
  );
  assert.throws(
    () => resolveSigner({ id: 's', type: 'local', private_key_env: 'NOPE' }, 'solana', {}),
    /environment variable NOPE is not set/,
  );
});

test('Stellar keys: an S… secret seed gives its G… address and signs like stellar-base; an address-only signer still loads but cannot sign', async () => {
  const kp = Keypair.random();
  const resolved = resolveSigner(signer(kp.secret()), 'stellar', {});
  assert.equal(resolved.address, kp.publicKey());
  const message = randomBytes(32);
  assert.deepEqual(Buffer.from(await resolved.ed25519!.sign(message)), kp.sign(message));
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: kp.rawPublicKey().toString('base64url') },
    format: 'jwk',
  });
  assert.ok(verify(null, message, key, await resolved.ed25519!.sign(message)));
  assert.throws(() => resolveSigner(signer(kp.publicKey()), 'stellar', {}), /the Stellar key must be a secret seed/);
  assert.throws(
    () => resolveSigner(signer(kp.secret(), { address: Keypair.random().publicKey() }), 'stellar', {}),
    /does not match the key's address/,
  );
  const addressOnly = resolveSigner({ id: 's', type: 'local', address: kp.publicKey() }, 'stellar', {});
  assert.deepEqual(addressOnly, { address: kp.publicKey() });
});
