// Seals secrets at rest (webhook signing keys, signer keys and credentials) with AES-256-GCM under
// STORAGE_ENCRYPTION_KEY; opens them only to use them.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

export interface SecretBox {
  /** True when a storage key is configured (new keys are stored sealed). */
  readonly sealing: boolean;
  /** `enc:v1:<iv>:<tag>:<ciphertext>` (base64) with a storage key; the plain text without one. */
  seal(plain: string, owner: string): string;
  /** The plain key (sealed under the storage key, or the previous one during a rotation). Throws a plain Error with a clear reason when it cannot. */
  open(stored: string, owner: string): string;
  isSealed(stored: string): boolean;
  /**
   * What should be stored instead of `stored`: sealed under the current key when it is plain or sealed under the
   * previous one; undefined when it already is (or there is no storage key). Throws like `open`.
   */
  reseal(stored: string, owner: string): string | undefined;
}

const PURPOSE = 'notification signing keys v1';
// HKDF turns a passphrase of any length into exactly 32 bytes, with a purpose label of our own.
const deriveKey = (storageKey: string) => Buffer.from(hkdfSync('sha256', storageKey, 'relaybox', PURPOSE, 32));

/** The plain text, or undefined when `key` did not seal it (GCM's tag does not match). */
function openWith(key: Buffer, stored: string, owner: string): string | undefined {
  const [iv, tag, ciphertext] = stored.slice(PREFIX.length).split(':');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64'));
    decipher.setAAD(Buffer.from(owner, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag ?? '', 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext ?? '', 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** `previousKey`: STORAGE_ENCRYPTION_KEY_PREVIOUS during a rotation; what it sealed still opens, and reseal moves it. */
export function createSecretBox(storageKey: string | undefined, previousKey?: string): SecretBox {
  const key = storageKey ? deriveKey(storageKey) : undefined;
  const previous = previousKey ? deriveKey(previousKey) : undefined;
  const isSealed = (stored: string) => stored.startsWith(PREFIX);
  const seal = (plain: string, owner: string) => {
    if (!key) return plain;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    // The owner id as associated data: a sealed key copied onto another notification will not open.
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${ciphertext.toString('base64')}`;
  };
  const open = (stored: string, owner: string) => {
    if (!isSealed(stored)) return stored;
    if (!key) throw new Error('the signing key is stored encrypted but STORAGE_ENCRYPTION_KEY is not set');
    const plain = openWith(key, stored, owner) ?? (previous && openWith(previous, stored, owner));
    if (plain === undefined)
      throw new Error(
        'the stored signing key cannot be decrypted: STORAGE_ENCRYPTION_KEY differs from the one it was stored with',
      );
    return plain;
  };
  return {
    sealing: key !== undefined,
    isSealed,
    seal,
    open,
    reseal(stored, owner) {
      if (!key) return undefined;
      if (isSealed(stored) && openWith(key, stored, owner) !== undefined) return undefined;
      return seal(open(stored, owner), owner);
    },
  };
}

/**
 * A fingerprint of STORAGE_ENCRYPTION_KEY that reveals nothing about it (HKDF with a label of its own), or `none`.
 * Instances sharing a database store it once and compare: one sealing with another key would make keys unreadable.
 */
export function storageKeyVerifier(storageKey: string | undefined): string {
  if (!storageKey) return 'none';
  return `v1:${Buffer.from(hkdfSync('sha256', storageKey, 'relaybox', 'storage key verifier v1', 32)).toString('hex')}`;
}
