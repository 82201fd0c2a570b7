// What a KMS or an HSM answers, made into the 65 bytes the signer port promises: r and s out of DER (or raw r ‖ s),
// s made low (EIP-2), and v found by recovering against the signer's known address. A signature that recovers to
// another address is refused here, so it is never broadcast.
import secp256k1 from 'secp256k1';
import { getAddress, keccak256, toHex } from 'viem';

const SECP256K1_SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200';

/** The 0x address (EIP-55) of a secp256k1 public key: SPKI DER, 65 bytes uncompressed, or 33 compressed. */
export function evmAddressFromPublicKey(publicKey: Uint8Array): `0x${string}` {
  let key = publicKey;
  const hex = Buffer.from(key).toString('hex');
  if (hex.startsWith(SECP256K1_SPKI_PREFIX)) key = key.subarray(SECP256K1_SPKI_PREFIX.length / 2);
  else if (key.length > 65 && key[0] === 0x30)
    throw new Error('the public key is not a secp256k1 key (SPKI of another curve)');
  let uncompressed = key;
  if (key.length === 33) {
    try {
      uncompressed = secp256k1.publicKeyConvert(key, false);
    } catch {
      throw new Error('the public key (33 bytes, compressed) is not a point on secp256k1');
    }
  }
  if (uncompressed.length !== 65 || uncompressed[0] !== 4)
    throw new Error(`the public key has ${key.length} bytes; expected a secp256k1 key`);
  return getAddress(`0x${keccak256(toHex(uncompressed.subarray(1))).slice(-40)}`);
}

/**
 * `signature`: DER (as AWS, Google and PKCS#11 wrappers answer) or 64 raw bytes r ‖ s (PKCS#11 CKM_ECDSA, Azure).
 * Returns r ‖ s ‖ v with s low and v 27 or 28, or throws when neither recovery id gives `address`.
 */
export function evmSignatureFrom(signature: Uint8Array, digest: Uint8Array, address: string): Uint8Array {
  if (digest.length !== 32) throw new Error(`the digest has ${digest.length} bytes; expected 32`);
  let rs: Uint8Array;
  try {
    rs = signature.length === 64 ? Uint8Array.from(signature) : secp256k1.signatureImport(signature);
  } catch {
    throw new Error('the signer answered a signature that is neither DER nor 64 bytes r ‖ s');
  }
  secp256k1.signatureNormalize(rs);
  const want = address.toLowerCase();
  for (const recid of [0, 1]) {
    let recovered: Uint8Array;
    try {
      recovered = secp256k1.ecdsaRecover(rs, recid, digest, false);
    } catch {
      continue;
    }
    if (evmAddressFromPublicKey(recovered).toLowerCase() !== want) continue;
    const out = new Uint8Array(65);
    out.set(rs);
    out[64] = 27 + recid;
    return out;
  }
  throw new Error(`the signature does not recover to the signer's address ${address}: refused, never broadcast`);
}
