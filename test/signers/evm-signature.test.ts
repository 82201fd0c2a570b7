// A KMS's or an HSM's answer made into an EVM signature: DER or raw, any s, v recovered; a wrong key is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import secp256k1 from 'secp256k1';
import { keccak256, recoverAddress, toHex } from 'viem';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../../src/signers/evm-signature.ts';

const N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

/** A key as a KMS holds it: we see its SPKI public key and the signatures it answers (DER), never the key. */
function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const spki = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
  const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const signDer = (digest: Uint8Array) => secp256k1.signatureExport(secp256k1.ecdsaSign(digest, d).signature);
  return { signDer, spki, address: evmAddressFromPublicKey(spki) };
}

test('the address of a key comes alike from its SPKI, its uncompressed and its compressed forms', () => {
  const { spki, address } = keyPair();
  const raw = spki.subarray(spki.length - 65);
  assert.equal(evmAddressFromPublicKey(raw), address);
  assert.equal(evmAddressFromPublicKey(secp256k1.publicKeyConvert(raw, true)), address);
  const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  assert.throws(() => evmAddressFromPublicKey(new Uint8Array(ed)), /secp256k1/);
});

test('a DER signature with a high s is made low, and v recovers to the address', async () => {
  const { signDer, address } = keyPair();
  for (let i = 0; i < 8; i++) {
    const digest = new Uint8Array(Buffer.from(keccak256(toHex(`message ${i}`)).slice(2), 'hex'));
    // libsecp256k1 answers a low s; half the time it is made high, as a KMS may answer.
    let raw = secp256k1.signatureImport(signDer(digest));
    const s = BigInt(toHex(raw.subarray(32)));
    if (i % 2 === 0 && s <= N / 2n)
      raw = Uint8Array.from([...raw.subarray(0, 32), ...Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex')]);
    const der = secp256k1.signatureExport(raw);
    for (const answer of [der, raw]) {
      const sig = evmSignatureFrom(answer, digest, address);
      assert.ok(BigInt(toHex(sig.subarray(32, 64))) <= N / 2n, 's is low');
      assert.ok(sig[64] === 27 || sig[64] === 28);
      assert.equal(await recoverAddress({ hash: toHex(digest), signature: toHex(sig) }), address);
    }
  }
});

test('a signature by another key is refused, and so is an answer that is no signature', () => {
  const { signDer } = keyPair();
  const other = keyPair();
  const digest = new Uint8Array(randomBytes(32));
  const der = signDer(digest);
  assert.throws(() => evmSignatureFrom(der, digest, other.address), /does not recover to the signer's address/);
  assert.throws(() => evmSignatureFrom(new Uint8Array([1, 2, 3]), digest, other.address), /neither DER nor 64 bytes/);
});
