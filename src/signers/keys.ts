// Signing with a key held in this process: secp256k1 for EVM, Ed25519 for Solana and Stellar, and the address each
// network derives from the public key. The local signer and the `vault` signer (a key read from a Vault KV secret)
// both build their signers here.
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import secp256k1 from 'secp256k1';
import type { Ed25519Signer, Signer } from '../domain/signers/ports.ts';

// PKCS#8 DER header of an Ed25519 private key (RFC 8410): the 32-byte seed follows.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The Ed25519 key of a 32-byte seed and its 32-byte public key. */
export function ed25519Key(seed: Uint8Array): { key: KeyObject; publicKey: Uint8Array } {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return { key, publicKey: new Uint8Array(spki.subarray(spki.length - 32)) };
}

/** The signer of a seed, its address `encode`d from the public key. */
export function ed25519SignerOf(seed: Uint8Array, encode: (publicKey: Uint8Array) => string): Ed25519Signer {
  const { key, publicKey } = ed25519Key(seed);
  return { address: encode(publicKey), sign: async (message) => new Uint8Array(sign(null, message, key)) };
}

/**
 * Solana: the base58 public key; Stellar: the `G…` account id. Their libraries (~23 MiB of the HTTP process
 * together) are loaded with the first Solana or Stellar key: a deployment of EVM signers never loads them.
 */
export async function ed25519Address(publicKey: Uint8Array, networkType: 'solana' | 'stellar'): Promise<string> {
  return (await import('./ed25519-address.ts')).encodeEd25519Address(publicKey, networkType);
}

export async function ed25519Signer(seed: Uint8Array, networkType: 'solana' | 'stellar'): Promise<Ed25519Signer> {
  const { encodeEd25519Address } = await import('./ed25519-address.ts');
  return ed25519SignerOf(seed, (publicKey) => encodeEd25519Address(publicKey, networkType));
}

/**
 * libsecp256k1 signs the digest (RFC 6979 nonce, low s: the same bytes viem's own signer gives, 8x faster than its
 * JavaScript curve, which made signing the cost of every send). Synchronous work behind the async port: a send pays
 * no more than a resolved promise for it.
 */
export function evmSigner(privateKey: `0x${string}`): Signer {
  const key = hexToBytes(privateKey);
  return {
    address: privateKeyToAccount(privateKey).address,
    async signEvmDigest(digest) {
      const { signature, recid } = secp256k1.ecdsaSign(digest, key);
      const out = new Uint8Array(65);
      out.set(signature);
      out[64] = 27 + recid;
      return out;
    },
  };
}
