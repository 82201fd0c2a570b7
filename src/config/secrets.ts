// Secrets the config names by environment variable, read into the config at start; and the storage keys.
import { getPath, setPath, SIGNER_SCHEMAS, type SecretRef } from './signer-schemas.ts';
import type { ConfigFile } from './types.ts';

/** The value of a `{ type: env|plain, value }` secret; throws naming `at` when the variable is unset. */
export function resolveSecret(ref: SecretRef, env: NodeJS.ProcessEnv, at: string): string {
  if (ref.type === 'plain') return ref.value;
  const value = env[ref.value];
  if (!value) throw new Error(`${at}: environment variable ${ref.value} is not set`);
  return value;
}

/** Reads `signing_key_env` or a `{ type, value }` signing key of each notification into a plain `signing_key`. */
export function resolveNotificationKeys(file: ConfigFile, env: NodeJS.ProcessEnv): ConfigFile {
  file.notifications = file.notifications.map((n, i) => {
    const { signing_key_env: name, signing_key: written, ...entry } = n;
    const given = written as string | SecretRef | undefined;
    let key: string | undefined;
    if (name) key = resolveSecret({ type: 'env', value: name }, env, `notifications.${i}.signing_key_env`);
    else if (given !== undefined && typeof given === 'object')
      key = resolveSecret(given, env, `notifications.${i}.signing_key`);
    else key = given;
    if (key !== undefined && key.length < 32) {
      const source = name ?? (typeof given === 'object' && given.type === 'env' ? given.value : undefined);
      throw new Error(
        `notifications.${i}.${name ? 'signing_key_env' : 'signing_key'}: ${source ?? 'the key'} must hold at least 32 characters`,
      );
    }
    // The resolved entry carries the key itself, so it passes the file schema again (test helper).
    return key === undefined ? entry : { ...entry, signing_key: key };
  });
  return file;
}

/**
 * Reads every secret field of every signer given as `{ type: "env" }` (a keystore passphrase, a Vault secret_id, …)
 * from the environment, so adapters read `config.<field>.value` alone; a variable unset fails the start naming the
 * signer, the field and the variable.
 */
export function resolveSignerSecrets(file: ConfigFile, env: NodeJS.ProcessEnv): ConfigFile {
  file.signers.forEach((s, i) => {
    if (!s.config) return;
    for (const field of SIGNER_SCHEMAS[s.type].secretFields) {
      const ref = getPath(s.config, field) as SecretRef | undefined;
      if (ref?.type !== 'env') continue;
      let value: string;
      try {
        value = resolveSecret(ref, env, `signers.${i}.config.${field}`);
      } catch (err) {
        throw new Error(`${(err as Error).message} (signer '${s.id}')`, { cause: err });
      }
      setPath(s.config, field, { type: 'plain', value });
    }
  });
  return file;
}

/** STORAGE_ENCRYPTION_KEY, and STORAGE_ENCRYPTION_KEY_PREVIOUS during a rotation (docs/security.md). Never echoed. */
export function storageKeys(
  encryptionKey: string | undefined,
  previousKey: string | undefined,
): { encryptionKey: string | undefined; previousKey: string | undefined } {
  if (encryptionKey !== undefined && encryptionKey.length < 32)
    throw new Error('STORAGE_ENCRYPTION_KEY must be at least 32 characters');
  if (previousKey === undefined) return { encryptionKey, previousKey };
  if (encryptionKey === undefined)
    throw new Error(
      'STORAGE_ENCRYPTION_KEY_PREVIOUS is set without STORAGE_ENCRYPTION_KEY: a rotation needs the new key too',
    );
  if (previousKey.length < 32) throw new Error('STORAGE_ENCRYPTION_KEY_PREVIOUS must be at least 32 characters');
  if (previousKey === encryptionKey)
    throw new Error(
      'STORAGE_ENCRYPTION_KEY_PREVIOUS is the same as STORAGE_ENCRYPTION_KEY: give the old key there, or unset it',
    );
  return { encryptionKey, previousKey };
}
