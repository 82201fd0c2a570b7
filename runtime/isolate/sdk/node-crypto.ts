// The sandbox's `crypto` / `node:crypto` for bundled plugins (runtime/process/bundler.ts aliases the built-in here): the
// parts of Node's module that published plugins use, built on the sandbox's `crypto` global (randomness from the
// host-keyed generator, subtle answered by the worker) and @noble/hashes for the synchronous hashes.
import { Buffer } from 'buffer';
import { hmac } from '@noble/hashes/hmac';
import { md5, ripemd160, sha1 } from '@noble/hashes/legacy';
import { sha224, sha256, sha384, sha512 } from '@noble/hashes/sha2';
import { keccak_256, sha3_256, sha3_512 } from '@noble/hashes/sha3';

type Hash = typeof sha256;
const HASHES: Record<string, Hash> = {
  md5: md5 as Hash,
  ripemd160: ripemd160 as Hash,
  rmd160: ripemd160 as Hash,
  sha1: sha1 as Hash,
  sha224,
  sha256,
  sha384,
  sha512,
  'sha3-256': sha3_256,
  'sha3-512': sha3_512,
  'keccak-256': keccak_256,
};
const webcrypto = globalThis.crypto;

function hashOf(algorithm: string): Hash {
  const h = HASHES[String(algorithm).toLowerCase().replace(/^rsa-/, '')];
  if (!h) throw new Error(`Digest method not supported in the plugin sandbox: ${algorithm}`);
  return h;
}

const toBytes = (data: unknown, encoding?: BufferEncoding): Uint8Array =>
  typeof data === 'string'
    ? Buffer.from(data, encoding ?? 'utf8')
    : data instanceof Uint8Array
      ? data
      : Buffer.from(data as ArrayBuffer);

const output = (bytes: Uint8Array, encoding?: BufferEncoding) =>
  encoding ? Buffer.from(bytes).toString(encoding) : Buffer.from(bytes);

export function randomBytes(size: number, callback?: (err: Error | null, buf: Buffer) => void): Buffer {
  if (!Number.isSafeInteger(size) || size < 0 || size > 2 ** 31 - 1)
    throw new RangeError(`The value of "size" is out of range. Received ${size}`);
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += 65536) webcrypto.getRandomValues(out.subarray(i, Math.min(size, i + 65536)));
  if (callback) queueMicrotask(() => callback(null, out));
  return out;
}

export function randomInt(min: number, max?: number): number {
  const [lo, hi] = max === undefined ? [0, min] : [min, max];
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo)
    throw new RangeError('randomInt: max must be greater than min');
  const range = hi - lo;
  const limit = 2 ** 48 - (2 ** 48 % range);
  for (;;) {
    const b = randomBytes(6);
    const n = b.readUIntBE(0, 6);
    if (n < limit) return lo + (n % range);
  }
}

export const randomUUID = (): string => webcrypto.randomUUID();
export const getRandomValues = <T extends ArrayBufferView>(array: T): T =>
  webcrypto.getRandomValues(array as never) as T;
export const subtle = webcrypto.subtle;
export { webcrypto };

class Digest {
  #chunks: Uint8Array[] = [];
  #done = false;
  readonly #finish: (data: Uint8Array) => Uint8Array;
  constructor(finish: (data: Uint8Array) => Uint8Array) {
    this.#finish = finish;
  }
  update(data: unknown, encoding?: BufferEncoding): this {
    if (this.#done) throw new Error('Digest already called');
    this.#chunks.push(toBytes(data, encoding));
    return this;
  }
  digest(encoding?: BufferEncoding): Buffer | string {
    if (this.#done) throw new Error('Digest already called');
    this.#done = true;
    return output(this.#finish(Buffer.concat(this.#chunks)), encoding);
  }
}

export const createHash = (algorithm: string) => {
  const h = hashOf(algorithm);
  return new Digest((data) => h(data));
};
export const createHmac = (algorithm: string, key: unknown) => {
  const h = hashOf(algorithm);
  const k = toBytes(key);
  return new Digest((data) => hmac(h, k, data));
};
export const getHashes = (): string[] => Object.keys(HASHES);

export function timingSafeEqual(a: ArrayBufferView, b: ArrayBufferView): boolean {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (x.length !== y.length) throw new RangeError('Input buffers must have the same byte length');
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

export default {
  randomBytes,
  randomInt,
  randomUUID,
  getRandomValues,
  subtle,
  webcrypto,
  createHash,
  createHmac,
  getHashes,
  timingSafeEqual,
};
