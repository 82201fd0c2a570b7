// Repository of the plugin KV store (tables plugin_kv, plugin_kv_locks, plugin_kv_usage): one namespace per plugin,
// optional TTL, and a per-plugin quota of keys and bytes.
import { randomUUID } from 'node:crypto';
import type { Db } from './db.ts';
import type { KvQuota, KvRepo } from '../../domain/kv/ports.ts';
import {
  checkKey,
  checkPattern,
  checkTtl,
  checkValue,
  expiresAt,
  overQuota,
  quotaExceeded,
  type KvClock,
} from '../../domain/kv/rules.ts';

/** The SQLite repository's own type: every answer is immediate. */
export type SyncKvRepo = { [K in keyof KvRepo]: (...args: Parameters<KvRepo[K]>) => Awaited<ReturnType<KvRepo[K]>> };

export function createKvRepo(db: Db, now: KvClock = Date.now): SyncKvRepo {
  const get = db
    .prepare('SELECT value FROM plugin_kv WHERE plugin_id = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)')
    .pluck();
  const upsert = db.prepare(
    'INSERT INTO plugin_kv (plugin_id, key, value, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const del = db.prepare(
    'DELETE FROM plugin_kv WHERE plugin_id = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)',
  );
  const purge = db.prepare('DELETE FROM plugin_kv WHERE plugin_id = ? AND expires_at IS NOT NULL AND expires_at <= ?');
  const list = db
    .prepare(
      'SELECT key FROM plugin_kv WHERE plugin_id = ? AND key GLOB ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT 10000',
    )
    .pluck();
  const clear = db.prepare('DELETE FROM plugin_kv WHERE plugin_id = ?');
  const takeLock = db.prepare(
    'INSERT INTO plugin_kv_locks (plugin_id, key, token, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (plugin_id, key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at WHERE plugin_kv_locks.expires_at <= ?',
  );
  const releaseLock = db.prepare('DELETE FROM plugin_kv_locks WHERE plugin_id = ? AND key = ? AND token = ?');
  const usage = db.prepare('SELECT keys, bytes FROM plugin_kv_usage WHERE plugin_id = ?');
  const sizeOf = db
    .prepare(
      'SELECT length(CAST(key AS BLOB)) + length(CAST(value AS BLOB)) FROM plugin_kv WHERE plugin_id = ? AND key = ?',
    )
    .pluck();

  const usageOf = (pluginId: string) =>
    (usage.get(pluginId) as { keys: number; bytes: number } | undefined) ?? { keys: 0, bytes: 0 };
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
