// The local signer (the domain's Signer port): a key from the config file, the environment or a keystore, kept here.
// Resolves each configured relayer's signer: its public address and what signs (secp256k1 for EVM, Ed25519 for Solana
// and Stellar, in ../keys.ts); the key never leaves src/signers.
import { getBase58Encoder, isAddress as isSolanaAddress } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import type { SignerConfig, SignerConfigOf } from '../../config/config.ts';
import { KEYSTORE_MAX_BYTES, readJsonFile } from '../../config/read-file.ts';
import type { NetworkType } from '../../domain/types.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Key, ed25519Signer, evmSigner } from '../keys.ts';
import { decryptKeystore } from './keystore.ts';

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** Keystores already opened, by path and passphrase: one scrypt run per signer, not per relayer using it. */
const opened = new Map<string, string>();

/** The 32-byte secret of a keystore signer (`config.path` + `config.passphrase`), as 0x-hex. */
function keystoreKey(signer: SignerConfigOf<'local'>, env: NodeJS.ProcessEnv): string {
  const { path, passphrase } = signer.config!;
  const secret = passphrase.type === 'plain' ? passphrase.value : env[passphrase.value];
  if (!secret) throw new Error(`signer '${signer.id}': environment variable ${passphrase.value} (the keystore passphrase) is not set`);
  const cacheKey = `${path}\0${secret}`;
  const known = opened.get(cacheKey);
  if (known) return known;
  let json: unknown;
  try {
    // A regular file of at most 64 KiB, never echoed into the error (src/config/read-file.ts).
    json = readJsonFile(path, KEYSTORE_MAX_BYTES, 'keystore');
  } catch (err) {
    throw new Error(`signer '${signer.id}': ${(err as Error).message}`, { cause: err });
  }
  let key: Buffer;
  try {
    key = decryptKeystore(json, secret);
  } catch (err) {
    throw new Error(`signer '${signer.id}': keystore ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (key.length !== 32) throw new Error(`signer '${signer.id}': keystore ${path} holds ${key.length} bytes; expected a 32-byte key`);
  const hex = `0x${key.toString('hex')}`;
  opened.set(cacheKey, hex);
  return hex;
}

/**
 * The configured key: a keystore (`config`), `private_key_env`, or a plain `private_key`; undefined when none is
 * set. A keystore's 32 bytes are the EVM private key, or the Ed25519 seed for Solana and Stellar (as the reference).
 */
function configuredKey(signer: SignerConfig, env: NodeJS.ProcessEnv): string | undefined {
  if (signer.type === 'local' && signer.config) return keystoreKey(signer, env);
  if (!signer.private_key_env) return signer.private_key?.trim();
  const key = env[signer.private_key_env];
  if (!key) throw new Error(`signer '${signer.id}': environment variable ${signer.private_key_env} is not set`);
  return key.trim();
}

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
    throw new Error(`signer '${id}': the Solana key must be a base58 secret key, a JSON array of 64 numbers, or a 32-byte seed in hex or base58`);
  }
  if (bytes.length !== 64 && bytes.length !== 32) throw new Error(`signer '${id}': the Solana key has ${bytes.length} bytes; expected a 64-byte secret key or a 32-byte seed`);
  const seed = bytes.subarray(0, 32);
  if (bytes.length === 64 && Buffer.compare(Buffer.from(bytes.subarray(32)), Buffer.from(ed25519Key(seed).publicKey)) !== 0) {
    throw new Error(`signer '${id}': the Solana secret key's public half does not match its seed`);
  }
  return seed;
}

function stellarSeed(id: string, key: string): Uint8Array {
  if (PRIVATE_KEY.test(key)) return Buffer.from(key.replace(/^0x/, ''), 'hex');
  if (!StrKey.isValidEd25519SecretSeed(key)) throw new Error(`signer '${id}': the Stellar key must be a secret seed (S…) or a 32-byte seed in hex`);
  return new Uint8Array(StrKey.decodeEd25519SecretSeed(key));
}

function resolveEvm(signer: SignerConfig, env: NodeJS.ProcessEnv): Signer {
  const key = configuredKey(signer, env);
  if (!key) throw new Error(`signer '${signer.id}': an EVM signer needs private_key_env (or private_key in development)`);
  if (!PRIVATE_KEY.test(key)) throw new Error(`signer '${signer.id}': the private key must be 32 bytes of hex`);
  return evmSigner((key.startsWith('0x') ? key : `0x${key}`) as `0x${string}`);
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
    const ed25519 = ed25519Signer(networkType === 'solana' ? solanaSeed(signer.id, key) : stellarSeed(signer.id, key), networkType);
    if (signer.address !== undefined && signer.address !== ed25519.address) {
      throw new Error(`signer '${signer.id}': address '${signer.address}' does not match the key's address '${ed25519.address}'`);
    }
    return { address: ed25519.address, ed25519 };
  }
  const address = signer.address;
  if (!address) throw new Error(`signer '${signer.id}': a ${networkType} signer needs private_key_env (or private_key in development), or an address`);
  const valid = networkType === 'solana' ? isSolanaAddress(address) : StrKey.isValidEd25519PublicKey(address);
  if (!valid) throw new Error(`signer '${signer.id}': '${address}' is not a valid ${networkType} address`);
  return { address };
}

/** The local adapter (src/signers/registry.ts): keys and keystore passphrases named by the config are read from `env`. */
export const createSigner: SignerFactory = async (signer, networkType, { env }) => resolveSigner(signer, networkType, env);
