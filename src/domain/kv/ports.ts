// The plugins' KV store as the plugin host sees it: one namespace per plugin, optional TTL, a per-plugin quota.
// A port (types only): the store implements it (src/store/), the plugin host uses it (src/plugin-host/kv.ts).

/** A plugin namespace's limits: keys, and bytes of keys + values (UTF-8). */
export interface KvQuota {
  maxKeys: number;
  maxBytes: number;
}

/** A result now (SQLite) or later (PostgreSQL): callers always `await` it. */
export type Awaitable<T> = T | Promise<T>;

/**
 * Values are stored as JSON text, exactly as the sandbox produced them. Implemented by the store: SQLite's
 * (answers synchronously, src/store/sqlite/kv-repo.ts), PostgreSQL's and Redis's (shared by every instance).
 * @example kv.set('counter', 'calls', '3', undefined, { maxKeys: 10_000, maxBytes: 64 << 20 }); kv.get('counter', 'calls') // '3'
 */
export interface KvRepo {
  get(pluginId: string, key: string): Awaitable<string | null>;
  /** Throws VALIDATION_FAILED when the write would take the namespace past `quota` (expired entries are purged first). */
  set(pluginId: string, key: string, valueJson: string, ttlSec: number | undefined, quota: KvQuota): Awaitable<void>;
  del(pluginId: string, key: string): Awaitable<boolean>;
  exists(pluginId: string, key: string): Awaitable<boolean>;
  /** `pattern` is a glob (`*`, `?`, `[…]`), as Redis SCAN MATCH. */
  listKeys(pluginId: string, pattern: string): Awaitable<string[]>;
  clear(pluginId: string): Awaitable<number>;
  /** Takes the lock if free (or expired): returns its token, or null when another holder has it. */
  lock(pluginId: string, key: string, ttlSec: number): Awaitable<string | null>;
  unlock(pluginId: string, key: string, token: string): Awaitable<boolean>;
}
