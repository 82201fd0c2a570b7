// Prelude part (INSIDE the isolate): the `crypto` global.
// - getRandomValues / randomUUID: a ChaCha20 keystream keyed with 32 bytes of the host's CSPRNG, fresh for every
//   context and every call (V8's Math.random is not a cryptographic generator, and asking the host synchronously
//   would make the isolate wait on the worker thread).
// - subtle: asynchronous by definition, so each operation is a request the worker answers itself with Node's
//   WebCrypto (runtime/worker/web-crypto.ts), under the call's scope and limits. A CryptoKey here holds its material as a
//   JWK that only this prelude reads; exportKey honours `extractable` as WebCrypto does.

export const CRYPTO = String.raw`
const U32 = Uint32Array;
const rng = { __proto__: null, key: new U32(8), counter: 0, block: new U8(64), used: 64 };

// The host's seed for the next key, read at the generator's first use after it came: most calls draw no random
// bytes, and parsing it at every call was a measured tenth of the call's own work in the isolate.
let seedHex;
/** Keys the generator with 64 hex characters from the host (before its next block). */
function reseed(hex) {
  if (typeof hex !== 'string' || hex.length !== 64) return;
  seedHex = hex;
  rng.used = 64;
}
function applySeed() {
  const hex = seedHex;
  seedHex = undefined;
  for (let i = 0; i < 8; i++) rng.key[i] = parseInt(apply(StringSlice, hex, [i * 8, i * 8 + 8]), 16) >>> 0;
  rng.counter = 0;
}

function rotl(x, n) { return (x << n) | (x >>> (32 - n)); }
function quarter(s, a, b, c, d) {
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 7);
}
const chachaIn = new U32(16);
const chachaX = new U32(16);
/** One ChaCha20 block (RFC 8439) into rng.block. */
function nextBlock() {
  if (seedHex !== undefined) applySeed();
  const s = chachaIn;
  s[0] = 0x61707865; s[1] = 0x3320646e; s[2] = 0x79622d32; s[3] = 0x6b206574;
  for (let i = 0; i < 8; i++) s[4 + i] = rng.key[i];
  s[12] = rng.counter++ >>> 0; s[13] = 0; s[14] = 0; s[15] = 0;
  const x = chachaX;
  apply(taSet, x, [s]);
  for (let r = 0; r < 10; r++) {
    quarter(x, 0, 4, 8, 12); quarter(x, 1, 5, 9, 13); quarter(x, 2, 6, 10, 14); quarter(x, 3, 7, 11, 15);
    quarter(x, 0, 5, 10, 15); quarter(x, 1, 6, 11, 12); quarter(x, 2, 7, 8, 13); quarter(x, 3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) {
    const w = (x[i] + s[i]) >>> 0;
    rng.block[i * 4] = w & 255; rng.block[i * 4 + 1] = (w >>> 8) & 255; rng.block[i * 4 + 2] = (w >>> 16) & 255; rng.block[i * 4 + 3] = w >>> 24;
  }
  rng.used = 0;
}
function randomInto(bytes) {
  const n = len(bytes);
  for (let i = 0; i < n; i++) {
    if (rng.used === 64) nextBlock();
    bytes[i] = rng.block[rng.used++];
  }
}

const INTEGER_ARRAYS = { __proto__: null, Int8Array: 1, Uint8Array: 1, Uint8ClampedArray: 1, Int16Array: 1, Uint16Array: 1, Int32Array: 1, Uint32Array: 1, BigInt64Array: 1, BigUint64Array: 1 };
/** The typed array's own kind (subclasses such as Buffer included), read through the intrinsic getter. */
const taKind = ObjectGetOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;

function getRandomValues(array) {
  const kind = array !== null && typeof array === 'object' ? apply(taKind, array, []) : undefined;
  if (kind === undefined || INTEGER_ARRAYS[kind] !== 1) {
    throw new DOMException("Failed to execute 'getRandomValues' on 'Crypto': The provided ArrayBufferView is not an integer array type.", 'TypeMismatchError');
  }
  const bytes = apply(taLength, array, []);
  if (bytes > 65536) throw new DOMException("Failed to execute 'getRandomValues' on 'Crypto': The ArrayBufferView's byte length (" + bytes + ') exceeds the number of bytes of entropy available via this API (65536).', 'QuotaExceededError');
  randomInto(new U8(apply(taBuffer, array, []), apply(taOffset, array, []), bytes));
  return array;
}

const HEX = '0123456789abcdef';
function randomUUID() {
  const b = new U8(16);
  randomInto(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[b[i] >> 4] + HEX[b[i] & 15];
  }
  return s;
}

// ── subtle ──────────────────────────────────────────────────────────────────
const cryptoKeys = new WeakMapC();
class CryptoKey {
  constructor(token) { if (token !== cryptoKeys) throw new TypeErrorC('Illegal constructor'); }
  get type() { return keyOf(this).type; }
  get extractable() { return keyOf(this).extractable; }
  get algorithm() { return keyOf(this).algorithm; }
  get usages() { return keyOf(this).usages.slice(); }
}
define(G, 'CryptoKey', CryptoKey);
function keyOf(k) {
  const d = k !== null && typeof k === 'object' ? apply(WeakMapGet, cryptoKeys, [k]) : undefined;
  if (d === undefined) throw new TypeErrorC('parameter is not of type CryptoKey');
  return d;
}
function makeKey(d, extractable) {
  const k = new CryptoKey(cryptoKeys);
  apply(WeakMapSet, cryptoKeys, [k, { __proto__: null, type: d.type, extractable: !!extractable, algorithm: ObjectFreeze(d.algorithm), usages: d.usages, jwk: d.jwk }]);
  return k;
}
function isBufferSource(v) {
  if (v === null || typeof v !== 'object') return false;
  try { apply(abLength, v, []); return true; } catch {}
  try { apply(taLength, v, []); return true; } catch {}
  try { apply(dvLength, v, []); return true; } catch {}
  return false;
}
/** Algorithm parameters as JSON: byte fields as { $b64 }, keys (ECDH's public) as { $key }. */
function wireAlg(alg) {
  if (typeof alg === 'string') return { name: alg };
  if (alg === null || typeof alg !== 'object') throw new TypeErrorC('Algorithm: Unrecognized name');
  const out = {};
  const keys = ObjectKeys(alg);
  for (let i = 0; i < keys.length; i++) {
    const v = alg[keys[i]];
    if (isBufferSource(v)) setOwn(out, keys[i], { $b64: base64Encode(toBytes(v)) });
    else if (v instanceof CryptoKey) { const d = keyOf(v); setOwn(out, keys[i], { $key: { jwk: d.jwk, algorithm: d.algorithm, type: d.type } }); }
    else if (v !== null && typeof v === 'object' && !isArray(v)) setOwn(out, keys[i], wireAlg(v));
    else setOwn(out, keys[i], v);
  }
  return out;
}
const wireKey = (k, usage) => {
  const d = keyOf(k);
  if (apply(ArrayIncludes, d.usages, [usage]) !== true) throw new DOMException('key does not allow the ' + usage + ' operation (usages: ' + d.usages.join(', ') + ')', 'InvalidAccessError');
  return { jwk: d.jwk, algorithm: d.algorithm, type: d.type };
};
const ArrayIncludes = Array.prototype.includes;
function bufferOf(b64) {
  const bytes = base64Decode(b64);
  return apply(taBuffer, bytes, []);
}
/** One subtle operation, answered by the worker; sandbox-side failures reject as WebCrypto would. */
function subtleCall(body, then) {
  let req;
  try { req = body(); } catch (e) { return rejected(e); }
  return apply(PromiseThen, call('crypto.subtle', req), [then, (e) => {
    const err = new DOMException(e && typeof e.message === 'string' ? e.message : 'The operation failed', e && typeof own(e, 'details') === 'object' && own(e, 'details') && typeof own(e, 'details').name === 'string' ? own(e, 'details').name : 'OperationError');
    throw err;
  }]);
}
const toUsages = (u) => { const out = []; if (u !== undefined && u !== null) for (let i = 0; i < u.length; i++) setOwn(out, i, StringC(u[i])); return out; };
const keyFromWire = (d, extractable) => makeKey(d, d.type === 'public' ? true : extractable);

const subtle = ObjectFreeze({
  __proto__: null,
  digest: (alg, data) => subtleCall(() => ({ op: 'digest', alg: wireAlg(alg), data: base64Encode(toBytes(data)) }), bufferOf),
  importKey: (format, keyData, alg, extractable, usages) => subtleCall(() => ({
    op: 'importKey', format: StringC(format), alg: wireAlg(alg), usages: toUsages(usages),
    keyData: format === 'jwk' ? parse(stringify(keyData)) : base64Encode(toBytes(keyData)),
  }), (d) => keyFromWire(d, extractable)),
  exportKey: (format, key) => subtleCall(() => {
    const d = keyOf(key);
    if (!d.extractable) throw new DOMException('key is not extractable', 'InvalidAccessError');
    return { op: 'exportKey', format: StringC(format), key: { jwk: d.jwk, algorithm: d.algorithm, type: d.type } };
  }, (r) => (format === 'jwk' ? r : bufferOf(r))),
  generateKey: (alg, extractable, usages) => subtleCall(() => ({ op: 'generateKey', alg: wireAlg(alg), usages: toUsages(usages) }), (r) =>
    r.secret ? keyFromWire(r.secret, extractable) : { publicKey: keyFromWire(r.publicKey, true), privateKey: keyFromWire(r.privateKey, extractable) }),
  sign: (alg, key, data) => subtleCall(() => ({ op: 'sign', alg: wireAlg(alg), key: wireKey(key, 'sign'), data: base64Encode(toBytes(data)) }), bufferOf),
  verify: (alg, key, signature, data) => subtleCall(() => ({ op: 'verify', alg: wireAlg(alg), key: wireKey(key, 'verify'), signature: base64Encode(toBytes(signature)), data: base64Encode(toBytes(data)) }), (r) => r === true),
  encrypt: (alg, key, data) => subtleCall(() => ({ op: 'encrypt', alg: wireAlg(alg), key: wireKey(key, 'encrypt'), data: base64Encode(toBytes(data)) }), bufferOf),
  decrypt: (alg, key, data) => subtleCall(() => ({ op: 'decrypt', alg: wireAlg(alg), key: wireKey(key, 'decrypt'), data: base64Encode(toBytes(data)) }), bufferOf),
  deriveBits: (alg, key, length) => subtleCall(() => ({ op: 'deriveBits', alg: wireAlg(alg), key: wireKey(key, 'deriveBits'), length: length === undefined ? null : length }), bufferOf),
});

define(G, 'crypto', ObjectFreeze({ __proto__: null, getRandomValues, randomUUID, subtle }));
`;
