// Repository of the plugin KV store (tables plugin_kv, plugin_kv_locks, plugin_kv_usage): one namespace per plugin,
// optional TTL, and a per-plugin quota of keys and bytes.
import { randomUUID } from 'node:crypto';
import type { Db } from './db.ts';
import { ValidationError } from '../../errors.ts';
import type { KvQuota, KvRepo } from '../../domain/kv/ports.ts';

export const KV_KEY = /^[A-Za-z0-9:_-]{1,512}$/;
export const KV_MAX_VALUE_BYTES = 1024 * 1024;
const MAX_TTL_SEC = 10 * 365 * 24 * 3600;

/** The SQLite repository's own type: every answer is immediate. */
export type SyncKvRepo = { [K in keyof KvRepo]: (...args: Parameters<KvRepo[K]>) => Awaited<ReturnType<KvRepo[K]>> };

export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || !KV_KEY.test(key)) throw new ValidationError(`invalid kv key: must match ${KV_KEY.source}`);
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
  if (Buffer.byteLength(valueJson) > KV_MAX_VALUE_BYTES) throw new ValidationError(`kv value exceeds ${KV_MAX_VALUE_BYTES} bytes`);
}

export function checkPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > 512) throw new ValidationError('invalid kv pattern');
  return pattern;
}

export const overQuota = (u: { keys: number; bytes: number }, q: KvQuota) => u.keys > q.maxKeys || u.bytes > q.maxBytes;

export function quotaExceeded(quota: KvQuota): ValidationError {
  return new ValidationError(`kv quota exceeded: this plugin may store at most ${quota.maxKeys} keys and ${quota.maxBytes} bytes (keys + values)`, {
    max_keys: quota.maxKeys,
    max_bytes: quota.maxBytes,
  });
}

/** Expiry time of a write with `ttlSec` (validated), or null for none. */
export function expiresAt(ttlSec: unknown, now: number): number | null {
  const ttl = checkTtl(ttlSec);
  return ttl === undefined ? null : now + Math.max(1, Math.round(ttl * 1000));
}

/** The clock expiries are read against (ms since the epoch); a test passes its own to step over a TTL. */
export type KvClock = () => number;

export function createKvRepo(db: Db, now: KvClock = Date.now): SyncKvRepo {
  const get = db.prepare('SELECT value FROM plugin_kv WHERE plugin_id = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)').pluck();
  const upsert = db.prepare(
    'INSERT INTO plugin_kv (plugin_id, key, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const del = db.prepare('DELETE FROM plugin_kv WHERE plugin_id = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)');
  const purge = db.prepare('DELETE FROM plugin_kv WHERE plugin_id = ? AND expires_at IS NOT NULL AND expires_at <= ?');
  const list = db.prepare('SELECT key FROM plugin_kv WHERE plugin_id = ? AND key GLOB ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT 10000').pluck();
  const clear = db.prepare('DELETE FROM plugin_kv WHERE plugin_id = ?');
  const takeLock = db.prepare(
    'INSERT INTO plugin_kv_locks (plugin_id, key, token, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at WHERE plugin_kv_locks.expires_at <= ?',
  );
  const releaseLock = db.prepare('DELETE FROM plugin_kv_locks WHERE plugin_id = ? AND key = ? AND token = ?');
  const usage = db.prepare('SELECT keys, bytes FROM plugin_kv_usage WHERE plugin_id = ?');
  const sizeOf = db.prepare('SELECT length(CAST(key AS BLOB)) + length(CAST(value AS BLOB)) FROM plugin_kv WHERE plugin_id = ? AND key = ?').pluck();

  const usageOf = (pluginId: string) => (usage.get(pluginId) as { keys: number; bytes: number } | undefined) ?? { keys: 0, bytes: 0 };
  /** Usage after writing `bytes` under `key`, exactly (the old entry's size subtracted). */
  const after = (pluginId: string, key: string, bytes: number) => {
    const used = usageOf(pluginId);
    const old = sizeOf.get(pluginId, key) as number | undefined;
    return { keys: used.keys + (old === undefined ? 1 : 0), bytes: used.bytes - (old ?? 0) + bytes };
  };
  const over = overQuota;
  // Synchronous from the read of the usage to the write: nothing else runs on this connection in between.
  const write = (pluginId: string, key: string, valueJson: string, expiresAt: number | null, quota: KvQuota) => {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(valueJson);
    const used = usageOf(pluginId);
    // Fast path: even as a new key, the write stays within the quota.
    if (over({ keys: used.keys + 1, bytes: used.bytes + bytes }, quota)) {
      let u = after(pluginId, key, bytes);
      if (over(u, quota)) {
        purge.run(pluginId, now());
        u = after(pluginId, key, bytes);
        if (over(u, quota)) throw quotaExceeded(quota);
      }
    }
    upsert.run(pluginId, key, valueJson, expiresAt);
  };

  return {
    get: (pluginId, key) => (get.get(pluginId, checkKey(key), now()) as string | undefined) ?? null,
    set(pluginId, key, valueJson, ttlSec, quota) {
      checkKey(key);
      const at = expiresAt(ttlSec, now());
      checkValue(valueJson);
      write(pluginId, key, valueJson, at, quota);
    },
    del: (pluginId, key) => del.run(pluginId, checkKey(key), now()).changes > 0,
    exists: (pluginId, key) => get.get(pluginId, checkKey(key), now()) !== undefined,
    listKeys(pluginId, pattern) {
      checkPattern(pattern);
      purge.run(pluginId, now());
      return list.all(pluginId, pattern, now()) as string[];
    },
    clear: (pluginId) => clear.run(pluginId).changes,
    lock(pluginId, key, ttlSec) {
      checkKey(key);
      const ttl = checkTtl(ttlSec) ?? 30;
      const token = randomUUID();
      const t = now();
      return takeLock.run(pluginId, key, token, t + Math.round(ttl * 1000), t).changes > 0 ? token : null;
    },
    unlock: (pluginId, key, token) => releaseLock.run(pluginId, checkKey(key), String(token)).changes > 0,
  };
}
