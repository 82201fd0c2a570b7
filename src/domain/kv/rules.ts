// The plugin KV store's rules, the same for every store (SQLite, PostgreSQL, Redis): what a key, a value, a TTL and a
// pattern may be, when a write goes past the quota, and the sentence that refuses it.
import { ValidationError } from '../../errors.ts';
import type { KvQuota } from './ports.ts';

export const KV_KEY = /^[A-Za-z0-9:_-]{1,512}$/;
export const KV_MAX_VALUE_BYTES = 1024 * 1024;
const MAX_TTL_SEC = 10 * 365 * 24 * 3600;

export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || !KV_KEY.test(key))
    throw new ValidationError(`invalid kv key: must match ${KV_KEY.source}`);
  return key;
}

/** Absent (`undefined`) means no expiry; anything else must be a finite, positive number (null is NaN sent as JSON). */
export function checkTtl(ttlSec: unknown): number | undefined {
  if (ttlSec === undefined) return undefined;
  if (typeof ttlSec !== 'number' || !Number.isFinite(ttlSec) || ttlSec <= 0 || ttlSec > MAX_TTL_SEC) {
    throw new ValidationError(`invalid ttlSec: must be a positive number of seconds up to ${MAX_TTL_SEC}`);
  }
  return ttlSec;
}

export function checkValue(valueJson: string): void {
  if (Buffer.byteLength(valueJson) > KV_MAX_VALUE_BYTES)
    throw new ValidationError(`kv value exceeds ${KV_MAX_VALUE_BYTES} bytes`);
}

export function checkPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > 512)
    throw new ValidationError('invalid kv pattern');
  return pattern;
}

export const overQuota = (u: { keys: number; bytes: number }, q: KvQuota) => u.keys > q.maxKeys || u.bytes > q.maxBytes;

export function quotaExceeded(quota: KvQuota): ValidationError {
  return new ValidationError(
    `kv quota exceeded: this plugin may store at most ${quota.maxKeys} keys and ${quota.maxBytes} bytes (keys + values)`,
    {
      max_keys: quota.maxKeys,
      max_bytes: quota.maxBytes,
    },
  );
}

/** Expiry time of a write with `ttlSec` (validated), or null for none. */
export function expiresAt(ttlSec: unknown, now: number): number | null {
  const ttl = checkTtl(ttlSec);
  return ttl === undefined ? null : now + Math.max(1, Math.round(ttl * 1000));
}

/** The clock expiries are read against (ms since the epoch); a test passes its own to step over a TTL. */
export type KvClock = () => number;
