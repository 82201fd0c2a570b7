// The plugin KV store on PostgreSQL (tables plugin_kv, plugin_kv_locks, plugin_kv_usage): the same namespaces,
// TTLs and per-plugin quotas as the SQLite one, shared by every instance. The usage row is locked for the check
// and the write (the trigger keeps it exact), so two instances can never both squeeze past a quota.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './db.ts';
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
import type { KvRepo } from '../../domain/kv/ports.ts';

/** A Redis-style glob (`*`, `?`, `[…]`, `[!…]`) as an anchored POSIX regular expression. */
export function globToRegex(glob: string): string {
  let out = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return `${out}$`;
}

export function createPostgresKvRepo(db: Db, clock: KvClock = Date.now): KvRepo {
  const live = (now: number) => sql<boolean>`(expires_at IS NULL OR expires_at > ${now})`;
  return {
    async get(pluginId, key) {
      const row = await db
        .selectFrom('plugin_kv')
        .select('value')
        .where('plugin_id', '=', pluginId)
        .where('key', '=', checkKey(key))
        .where(live(clock()))
        .executeTakeFirst();
      return row?.value ?? null;
    },
    async set(pluginId, key, valueJson, ttlSec, quota) {
      checkKey(key);
      const at = expiresAt(ttlSec, clock());
      checkValue(valueJson);
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(valueJson);
      await db.transaction().execute(async (trx) => {
        // Creates the usage row if needed and locks it until the write commits: one round trip.
        const usage = (
          await sql<{ keys: number; bytes: number }>`
            INSERT INTO plugin_kv_usage AS u (plugin_id) VALUES (${pluginId})
            ON CONFLICT (plugin_id) DO UPDATE SET keys = u.keys RETURNING keys, bytes`.execute(trx)
        ).rows[0]!;
        // Fast path: even as a new key, the write stays within the quota.
        if (overQuota({ keys: usage.keys + 1, bytes: usage.bytes + bytes }, quota)) {
          await trx
            .deleteFrom('plugin_kv')
            .where('plugin_id', '=', pluginId)
            .where('expires_at', '<=', clock())
            .execute();
          const after = (
            await sql<{ keys: number; bytes: number }>`
              SELECT u.keys + (CASE WHEN o.key IS NULL THEN 1 ELSE 0 END) AS keys,
                     u.bytes - COALESCE(octet_length(o.key) + octet_length(o.value), 0) + ${bytes}::bigint AS bytes
              FROM plugin_kv_usage u LEFT JOIN plugin_kv o ON o.plugin_id = u.plugin_id AND o.key = ${key}
              WHERE u.plugin_id = ${pluginId}`.execute(trx)
          ).rows[0]!;
          if (overQuota(after, quota)) throw quotaExceeded(quota);
        }
        await trx
          .insertInto('plugin_kv')
          .values({ plugin_id: pluginId, key, value: valueJson, expires_at: at })
          .onConflict((oc) =>
            oc
              .columns(['plugin_id', 'key'])
              .doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), expires_at: eb.ref('excluded.expires_at') })),
          )
          .execute();
      });
    },
    async del(pluginId, key) {
      const r = await db
        .deleteFrom('plugin_kv')
        .where('plugin_id', '=', pluginId)
        .where('key', '=', checkKey(key))
        .where(live(clock()))
        .executeTakeFirst();
      return r.numDeletedRows > 0n;
    },
    async exists(pluginId, key) {
      return (await this.get(pluginId, key)) !== null;
    },
    async listKeys(pluginId, pattern) {
      const regex = globToRegex(checkPattern(pattern));
      const now = clock();
      await db.deleteFrom('plugin_kv').where('plugin_id', '=', pluginId).where('expires_at', '<=', now).execute();
      const rows = await db
        .selectFrom('plugin_kv')
        .select('key')
        .where('plugin_id', '=', pluginId)
        .where(sql<boolean>`key ~ ${regex}`)
        .where(live(now))
        .orderBy(sql`key COLLATE "C"`)
        .limit(10_000)
        .execute();
      return rows.map((r) => r.key);
    },
    async clear(pluginId) {
      const r = await db.deleteFrom('plugin_kv').where('plugin_id', '=', pluginId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async lock(pluginId, key, ttlSec) {
      checkKey(key);
      const ttl = checkTtl(ttlSec) ?? 30;
      const token = randomUUID();
      const now = clock();
      const { rows } = await sql<{ token: string }>`
        INSERT INTO plugin_kv_locks AS l (plugin_id, key, token, expires_at) VALUES (${pluginId}, ${key}, ${token}, ${now + Math.round(ttl * 1000)})
        ON CONFLICT (plugin_id, key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at WHERE l.expires_at <= ${now}
        RETURNING token`.execute(db);
      return rows.length > 0 ? token : null;
    },
    async unlock(pluginId, key, token) {
      const r = await db
        .deleteFrom('plugin_kv_locks')
        .where('plugin_id', '=', pluginId)
        .where('key', '=', checkKey(key))
        .where('token', '=', String(token))
        .executeTakeFirst();
      return r.numDeletedRows > 0n;
    },
  };
}
