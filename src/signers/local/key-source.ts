// Where a local signer's key comes from (a keystore, an environment variable or the config) and the EVM signer made
// of it. No Solana or Stellar library here: an EVM deployment loads only this (resolve.ts has the other two).
import type { SignerConfig, SignerConfigOf } from '../../config/config.ts';
import { KEYSTORE_MAX_BYTES, readJsonFile } from '../../config/read-file.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import { evmSigner } from '../keys.ts';
import { decryptKeystore } from './keystore.ts';

export const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** Keystores already opened, by path and passphrase: one scrypt run per signer, not per relayer using it. */
const opened = new Map<string, string>();

/** The 32-byte secret of a keystore signer (`config.path` + `config.passphrase`), as 0x-hex. */
function keystoreKey(signer: SignerConfigOf<'local'>, env: NodeJS.ProcessEnv): string {
  const { path, passphrase } = signer.config!;
  const secret = passphrase.type === 'plain' ? passphrase.value : env[passphrase.value];
  if (!secret)
    throw new Error(
      `signer '${signer.id}': environment variable ${passphrase.value} (the keystore passphrase) is not set`,
    );
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
  if (key.length !== 32)
    throw new Error(`signer '${signer.id}': keystore ${path} holds ${key.length} bytes; expected a 32-byte key`);
  const hex = `0x${key.toString('hex')}`;
  opened.set(cacheKey, hex);
  return hex;
}

/**
 * The configured key: a keystore (`config`), `private_key_env`, or a plain `private_key`; undefined when none is
 * set. A keystore's 32 bytes are the EVM private key, or the Ed25519 seed for Solana and Stellar (as the reference).
 */
export function configuredKey(signer: SignerConfig, env: NodeJS.ProcessEnv): string | undefined {
  if (signer.type === 'local' && signer.config) return keystoreKey(signer, env);
  if (!signer.private_key_env) return signer.private_key?.trim();
  const key = env[signer.private_key_env];
  if (!key) throw new Error(`signer '${signer.id}': environment variable ${signer.private_key_env} is not set`);
  return key.trim();
}

export function resolveEvm(signer: SignerConfig, env: NodeJS.ProcessEnv): Signer {
  const key = configuredKey(signer, env);
  if (!key)
    throw new Error(`signer '${signer.id}': an EVM signer needs private_key_env (or private_key in development)`);
  if (!PRIVATE_KEY.test(key)) throw new Error(`signer '${signer.id}': the private key must be 32 bytes of hex`);
  return evmSigner((key.startsWith('0x') ? key : `0x${key}`) as `0x${string}`);
}
