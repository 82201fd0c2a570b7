// A local signer resolved for any network, synchronously: the key (key-source.ts), and for Solana and Stellar the
// seed read from that network's key formats and the address derived with its library. The local adapter (signer.ts)
// loads this module for a Solana or Stellar relayer only.
import { getBase58Encoder, isAddress as isSolanaAddress } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import type { SignerConfig } from '../../config/config.ts';
import type { NetworkType } from '../../domain/types.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import { ed25519Key, ed25519SignerOf } from '../keys.ts';
import { encodeEd25519Address } from '../ed25519-address.ts';
import { configuredKey, PRIVATE_KEY, resolveEvm } from './key-source.ts';

const base58 = getBase58Encoder();

/**
 * Solana: a 64-byte secret key (seed + public key) in base58 or as a JSON array of numbers (the
 * `solana-keygen` file's content), or a 32-byte seed in hex or base58. Returns the 32-byte seed.
 */
function solanaSeed(id: string, key: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    if (key.startsWith('[')) bytes = Uint8Array.from(JSON.parse(key) as number[]);
    else if (PRIVATE_KEY.test(key)) bytes = Buffer.from(key.replace(/^0x/, ''), 'hex');
    else bytes = new Uint8Array(base58.encode(key));
  } catch {
    throw new Error(
      `signer '${id}': the Solana key must be a base58 secret key, a JSON array of 64 numbers, or a 32-byte seed in hex or base58`,
    );
  }
  if (bytes.length !== 64 && bytes.length !== 32)
    throw new Error(
      `signer '${id}': the Solana key has ${bytes.length} bytes; expected a 64-byte secret key or a 32-byte seed`,
    );
  const seed = bytes.subarray(0, 32);
  if (
    bytes.length === 64 &&
    Buffer.compare(Buffer.from(bytes.subarray(32)), Buffer.from(ed25519Key(seed).publicKey)) !== 0
  ) {
    throw new Error(`signer '${id}': the Solana secret key's public half does not match its seed`);
  }
  return seed;
}

function stellarSeed(id: string, key: string): Uint8Array {
  if (PRIVATE_KEY.test(key)) return Buffer.from(key.replace(/^0x/, ''), 'hex');
  if (!StrKey.isValidEd25519SecretSeed(key))
    throw new Error(`signer '${id}': the Stellar key must be a secret seed (S…) or a 32-byte seed in hex`);
  return new Uint8Array(StrKey.decodeEd25519SecretSeed(key));
}

/**
 * EVM: the key comes from `private_key_env` (preferred) or a plain `private_key`, and the address is
 * derived from it. Solana and Stellar: the same two fields give an Ed25519 key (see solanaSeed and
 * stellarSeed) and the address is derived; a configured `address` must then match. Without a key the
 * signer is address-only, as before: it reports the address and cannot sign.
 * The reference's keystore signer (`config.path` + `config.passphrase`) resolves the same way: its 32 bytes are
 * a private key for EVM, a seed for Ed25519.
 * Throws an Error naming the signer and the problem, so a bad config stops the start.
 */
export function resolveSigner(signer: SignerConfig, networkType: NetworkType, env: NodeJS.ProcessEnv): Signer {
  if (networkType === 'evm') return resolveEvm(signer, env);
  const key = configuredKey(signer, env);
  if (key) {
    const seed = networkType === 'solana' ? solanaSeed(signer.id, key) : stellarSeed(signer.id, key);
    const ed25519 = ed25519SignerOf(seed, (publicKey) => encodeEd25519Address(publicKey, networkType));
    if (signer.address !== undefined && signer.address !== ed25519.address) {
      throw new Error(
        `signer '${signer.id}': address '${signer.address}' does not match the key's address '${ed25519.address}'`,
      );
    }
    return { address: ed25519.address, ed25519 };
  }
  const address = signer.address;
  if (!address)
    throw new Error(
      `signer '${signer.id}': a ${networkType} signer needs private_key_env (or private_key in development), or an address`,
    );
  const valid = networkType === 'solana' ? isSolanaAddress(address) : StrKey.isValidEd25519PublicKey(address);
  if (!valid) throw new Error(`signer '${signer.id}': '${address}' is not a valid ${networkType} address`);
  return { address };
}
