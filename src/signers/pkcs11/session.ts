// One signer's key in a PKCS#11 token: a session of its own, logged in with the PIN, the key found by label or id.
// A session does one operation at a time (PKCS#11 sessions are not concurrent), so operations queue here. A session
// the token dropped (module restart, token removed and back, a logout) is opened again, logged in again, its key
// found again (and checked to be the same key), and the operation retried once.
import { createHash } from 'node:crypto';
import { codeOf, loadModule, reason, type Pkcs11Module } from './module.ts';
import { CKK_EC, CKK_EC_EDWARDS, curveOf, publicPoint, type Curve } from './key-info.ts';

export interface KeyLocation {
  modulePath: string;
  tokenLabel?: string;
  slot?: number;
  keyLabel?: string;
  keyId?: Buffer;
  pin: string;
}

export interface Pkcs11Key {
  readonly curve: Curve;
  /** secp256k1: the 65-byte uncompressed point; Ed25519: the 32-byte key. */
  readonly publicKey: Uint8Array;
  /** CKM_ECDSA over a digest (secp256k1) or CKM_EDDSA over a message (Ed25519): the token's answer as it gives it. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

interface Connected {
  session: Buffer;
  key: Buffer;
  publicKey: Uint8Array;
}

interface Token {
  slot: Buffer;
  id: number;
  label: string;
}

// PKCS#11 3.0 mechanisms pkcs11js does not name.
const CKM_EDDSA = 0x1057;
const CKM_ECDSA = 0x1041;
const CKU_USER = 1;
// An ECDSA answer is 64 bytes (r ‖ s); room for a module that answers DER instead.
const SIGNATURE_ROOM = { secp256k1: 80, ed25519: 64 } as const;

/** Digest of the PIN that logged in each token (module path + slot id): a login is per token, shared by its sessions. */
const loggedIn = new Map<string, string>();

/** Opens the key (rejects with the reason: token, PIN, key or curve) and serializes its operations. */
export async function openKey(location: KeyLocation, curve: Curve, purpose: string): Promise<Pkcs11Key> {
  const mod = await loadModule(location.modulePath);
  let state = connect(mod, location, curve, purpose);
  const publicKey = state.publicKey;
  const mechanism = { mechanism: curve === 'secp256k1' ? CKM_ECDSA : CKM_EDDSA };
  const signOnce = (data: Uint8Array): Promise<Buffer> => {
    mod.lib.C_SignInit(state.session, mechanism, state.key);
    return mod.lib.C_SignAsync(state.session, Buffer.from(data), Buffer.alloc(SIGNATURE_ROOM[curve]));
  };
  const signRecovering = async (data: Uint8Array): Promise<Uint8Array> => {
    try {
      return new Uint8Array(await signOnce(data));
    } catch (err) {
      if (!sessionLost(mod, err)) throw new Error(`the token refused to sign: ${reason(err)}`);
    }
    close(mod, state.session);
    const again = connect(mod, location, curve, purpose);
    if (Buffer.compare(Buffer.from(again.publicKey), Buffer.from(publicKey)) !== 0) {
      close(mod, again.session);
      throw new Error(
        `after reopening the session, ${keyName(location)} is another key than the one this signer started with`,
      );
    }
    state = again;
    try {
      return new Uint8Array(await signOnce(data));
    } catch (err) {
      throw new Error(`the token refused to sign: ${reason(err)}`);
    }
  };
  let tail: Promise<unknown> = Promise.resolve();
  return {
    curve,
    publicKey,
    sign(data) {
      const run = tail.then(() => signRecovering(data));
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

/** The return codes after which a new session (and login) may succeed where this one failed. */
function sessionLost(mod: Pkcs11Module, err: unknown): boolean {
  const b = mod.binding;
  const lost = [
    b.CKR_SESSION_HANDLE_INVALID,
    b.CKR_SESSION_CLOSED,
    b.CKR_USER_NOT_LOGGED_IN,
    b.CKR_DEVICE_REMOVED,
    b.CKR_TOKEN_NOT_PRESENT,
    b.CKR_KEY_HANDLE_INVALID,
    b.CKR_OBJECT_HANDLE_INVALID,
  ];
  return lost.includes(codeOf(err));
}

function connect(mod: Pkcs11Module, location: KeyLocation, curve: Curve, purpose: string): Connected {
  const token = findToken(mod, location);
  let session: Buffer;
  try {
    session = mod.lib.C_OpenSession(token.slot, mod.binding.CKF_SERIAL_SESSION);
  } catch (err) {
    throw new Error(`${tokenName(token)}: cannot open a session: ${reason(err)}`);
  }
  mod.sessions.add(session);
  try {
    login(mod, session, token, location.pin);
    return { session, ...findKey(mod, session, token, location, curve, purpose) };
  } catch (err) {
    close(mod, session);
    throw err;
  }
}

function close(mod: Pkcs11Module, session: Buffer): void {
  mod.sessions.delete(session);
  try {
    mod.lib.C_CloseSession(session);
  } catch {
    // The token already dropped it.
  }
}

function findToken(mod: Pkcs11Module, location: KeyLocation): Token {
  const tokens = mod.lib.C_GetSlotList(true).map((slot): Token => {
    let label = '';
    try {
      label = mod.lib.C_GetTokenInfo(slot).label.trimEnd();
    } catch {
      // A slot whose token cannot be read is listed without a label.
    }
    return { slot, id: slotNumber(slot), label };
  });
  const byLabel = location.tokenLabel !== undefined;
  const found = tokens.filter((t) => (byLabel ? t.label === location.tokenLabel : t.id === location.slot));
  if (found.length === 1) return found[0]!;
  const present = tokens.map((t) => `slot ${t.id}${t.label ? ` '${t.label}'` : ''}`).join(', ') || 'none';
  if (found.length > 1)
    throw new Error(`${found.length} tokens are labelled '${location.tokenLabel}'; name one by its slot (${present})`);
  throw new Error(
    `no token ${byLabel ? `labelled '${location.tokenLabel}'` : `in slot ${location.slot}`} in ${mod.path} (tokens: ${present})`,
  );
}

/** A slot handle is a CK_ULONG in the platform's byte order (little-endian on the platforms Node runs on). */
function slotNumber(slot: Buffer): number {
  return slot.length >= 8 ? Number(slot.readBigUInt64LE(0)) : slot.readUInt32LE(0);
}

function login(mod: Pkcs11Module, session: Buffer, token: Token, pin: string): void {
  const tokenKey = `${mod.path}\0${token.id}`;
  const digest = createHash('sha256').update(pin).digest('hex');
  try {
    mod.lib.C_Login(session, CKU_USER, pin);
  } catch (err) {
    if (codeOf(err) !== mod.binding.CKR_USER_ALREADY_LOGGED_IN)
      throw new Error(`${tokenName(token)}: login refused: ${reason(err)}`);
    // Another signer of this process logged the token in: a different PIN here would otherwise go unchecked.
    const known = loggedIn.get(tokenKey);
    if (known !== undefined && known !== digest)
      throw new Error(
        `${tokenName(token)}: login refused: the PIN is wrong (not the PIN this token was logged in with)`,
      );
    return;
  }
  loggedIn.set(tokenKey, digest);
}

function findKey(
  mod: Pkcs11Module,
  session: Buffer,
  token: Token,
  location: KeyLocation,
  curve: Curve,
  purpose: string,
): Omit<Connected, 'session'> {
  const b = mod.binding;
  const attribute = (handle: Buffer, type: number) =>
    mod.lib.C_GetAttributeValue(session, handle, [{ type }])[0]?.value as Buffer | undefined;
  const key = findObject(mod, session, b.CKO_PRIVATE_KEY, location);
  if (!key) throw new Error(`no private key with ${keyName(location)} on ${tokenName(token)}`);
  const keyType = attribute(key, b.CKA_KEY_TYPE);
  const pub = findObject(mod, session, b.CKO_PUBLIC_KEY, location);
  if (!pub)
    throw new Error(
      `no public key object with ${keyName(location)} on ${tokenName(token)} (the address is derived from it)`,
    );
  const type = keyType ? Number(keyType.readUIntLE(0, Math.min(keyType.length, 6))) : -1;
  // Only EC keys have CKA_EC_PARAMS; asking an RSA key for them is an error of its own.
  const ec = type === CKK_EC || type === CKK_EC_EDWARDS;
  const found = curveOf(type, ec ? attribute(pub, b.CKA_EC_PARAMS) : undefined);
  const want = curve === 'secp256k1' ? 'a secp256k1 key' : 'an Ed25519 key';
  if ('other' in found)
    throw new Error(`the key with ${keyName(location)} is ${found.other}; ${purpose} needs ${want}`);
  if (found.curve !== curve)
    throw new Error(
      `the key with ${keyName(location)} is ${found.curve === 'secp256k1' ? 'a secp256k1' : 'an Ed25519'} key; ${purpose} needs ${want}`,
    );
  const point = attribute(pub, b.CKA_EC_POINT);
  if (!point) throw new Error(`the public key with ${keyName(location)} has no CKA_EC_POINT`);
  return { key, publicKey: publicPoint(curve, point) };
}

/** The one object of this class with the configured label or id; refuses two (which would be signing with a guess). */
function findObject(
  mod: Pkcs11Module,
  session: Buffer,
  objectClass: number,
  location: KeyLocation,
): Buffer | undefined {
  const b = mod.binding;
  const selector =
    location.keyLabel !== undefined
      ? { type: b.CKA_LABEL, value: location.keyLabel }
      : { type: b.CKA_ID, value: location.keyId };
  mod.lib.C_FindObjectsInit(session, [{ type: b.CKA_CLASS, value: objectClass }, selector]);
  let found: Buffer[];
  try {
    found = mod.lib.C_FindObjects(session, 2);
  } finally {
    mod.lib.C_FindObjectsFinal(session);
  }
  if (found.length > 1)
    throw new Error(
      `several ${objectClass === b.CKO_PRIVATE_KEY ? 'private' : 'public'} keys have ${keyName(location)}; give each a distinct label or id`,
    );
  return found[0];
}

function keyName(location: KeyLocation): string {
  return location.keyLabel !== undefined ? `label '${location.keyLabel}'` : `id ${location.keyId!.toString('hex')}`;
}

function tokenName(token: Token): string {
  return token.label ? `token '${token.label}'` : `the token in slot ${token.id}`;
}
