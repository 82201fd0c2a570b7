// The worker's side of the sandbox's crypto.subtle (runtime/isolate/prelude/crypto.ts): each operation arrives as JSON made in
// the isolate (bytes in base64, keys as JWK) and runs on Node's WebCrypto, "as far as the platform gives them"
// (digests, HMAC, ECDSA P-256/384/521, Ed25519, RSA, AES, ECDH/HKDF/PBKDF2 bits). Keys are imported for the one
// operation and dropped; the reply is JSON text.
import { webcrypto } from 'node:crypto';

const { subtle } = webcrypto;
// biome-ignore lint/suspicious/noExplicitAny: JSON made in the isolate, read field by field as WebCrypto's own parameter shapes
type Json = Record<string, any>;

/** Algorithm parameters back from the wire: `{ $b64 }` → bytes, `{ $key }` → a CryptoKey (ECDH's public key). */
// biome-ignore lint/suspicious/noExplicitAny: whatever algorithm dictionary WebCrypto takes for the operation
async function fromWire(alg: unknown): Promise<any> {
  if (alg === null || typeof alg !== 'object' || Array.isArray(alg)) return alg;
  const o = alg as Json;
  if (typeof o.$b64 === 'string') return Buffer.from(o.$b64, 'base64');
  if (o.$key && typeof o.$key === 'object') return importFor(o.$key, o.$key.type === 'public' ? [] : ['deriveBits']);
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) out[k] = await fromWire(v);
  return out;
}

function importFor(key: Json, usages: string[]): Promise<webcrypto.CryptoKey> {
  const jwk = { ...(key.jwk as Json) };
  delete jwk.key_ops;
  return subtle.importKey('jwk', jwk as webcrypto.JsonWebKey, key.algorithm, false, usages as webcrypto.KeyUsage[]);
}

/** The key as the sandbox keeps it: its JWK (always exported here, so later operations can import it again). */
async function describe(key: webcrypto.CryptoKey): Promise<Json> {
  return { type: key.type, algorithm: key.algorithm, usages: key.usages, jwk: await subtle.exportKey('jwk', key) };
}

const b64 = (buf: ArrayBuffer) => JSON.stringify(Buffer.from(buf).toString('base64'));
const bytes = (s: unknown) => Buffer.from(typeof s === 'string' ? s : '', 'base64');

/** Runs one operation; throws a DOMException-like error (its `name` travels as the error's details). */
export async function runSubtle(argsJson: string): Promise<string> {
  const req = JSON.parse(argsJson) as Json;
  const alg = await fromWire(req.alg);
  switch (req.op) {
    case 'digest':
      return b64(await subtle.digest(alg, bytes(req.data)));
    case 'importKey': {
      const data = req.format === 'jwk' ? req.keyData : bytes(req.keyData);
      return JSON.stringify(await describe(await subtle.importKey(req.format, data, alg, true, req.usages)));
    }
    case 'exportKey': {
      const key = await subtle.importKey('jwk', { ...req.key.jwk, key_ops: undefined }, req.key.algorithm, true, []);
      const out = await subtle.exportKey(req.format, key);
      return out instanceof ArrayBuffer ? b64(out) : JSON.stringify(out);
    }
    case 'generateKey': {
      const made = await subtle.generateKey(alg, true, req.usages);
      if ('privateKey' in made)
        return JSON.stringify({
          publicKey: await describe(made.publicKey),
          privateKey: await describe(made.privateKey),
        });
      return JSON.stringify({ secret: await describe(made as webcrypto.CryptoKey) });
    }
    case 'sign':
      return b64(await subtle.sign(alg, await importFor(req.key, ['sign']), bytes(req.data)));
    case 'verify':
      return JSON.stringify(
        await subtle.verify(alg, await importFor(req.key, ['verify']), bytes(req.signature), bytes(req.data)),
      );
    case 'encrypt':
      return b64(await subtle.encrypt(alg, await importFor(req.key, ['encrypt']), bytes(req.data)));
    case 'decrypt':
      return b64(await subtle.decrypt(alg, await importFor(req.key, ['decrypt']), bytes(req.data)));
    case 'deriveBits':
      return b64(await subtle.deriveBits(alg, await importFor(req.key, ['deriveBits']), req.length));
  }
  throw Object.assign(
    new Error(`crypto.subtle.${String(req.op).slice(0, 32)} is not supported in the plugin sandbox`),
    { name: 'NotSupportedError' },
  );
}

/** A failed operation as the sandbox's reply: the DOMException name rides in details. */
export function subtleError(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown };
  const name = typeof e?.name === 'string' && /^[A-Za-z]{1,40}$/.test(e.name) ? e.name : 'OperationError';
  const message = typeof e?.message === 'string' ? e.message.slice(0, 1000) : 'The operation failed';
  return JSON.stringify({
    ok: false,
    error: {
      code: 'CRYPTO_ERROR',
      message,
      status: 400,
      details: { name: name === 'Error' || name === 'TypeError' ? 'OperationError' : name },
    },
  });
}
