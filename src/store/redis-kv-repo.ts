// The plugin KV store on Redis (DATABASE_URL and REDIS_URL both set): one hash per plugin namespace, each field
// "<expiresAt>|<value JSON>" (0: no expiry), and a usage hash {keys, bytes} kept exact by the same Lua scripts that
// write, so the per-plugin quotas hold across instances exactly as on SQLite and PostgreSQL. Expired entries count
// until purged (a write over the quota purges first), as there. Locks are SET NX PX keys with a token.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  checkKey,
  checkPattern,
  checkTtl,
  checkValue,
  expiresAt,
  quotaExceeded,
  type KvClock,
} from '../domain/kv/rules.ts';
import type { KvRepo } from '../domain/kv/ports.ts';

const PREFIX = 'relaybox:kv:';
const data = (plugin: string) => `${PREFIX}{${plugin}}:data`;
const usage = (plugin: string) => `${PREFIX}{${plugin}}:usage`;
const lockKey = (plugin: string, key: string) => `${PREFIX}{${plugin}}:lock:${key}`;

// KEYS: data, usage. ARGV: key, stored field, bytes of key + value, maxKeys, maxBytes, now. Returns 1, or 0 over quota.
const SET = `
local function live(v, now) local at = tonumber(string.match(v, '^(%d+)|')) return at == 0 or at > now end
local function size(k, v) return #k + #v - #string.match(v, '^%d+|') end
local key, field, bytes, maxKeys, maxBytes, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local keys = tonumber(redis.call('HGET', KEYS[2], 'keys') or '0')
local used = tonumber(redis.call('HGET', KEYS[2], 'bytes') or '0')
local old = redis.call('HGET', KEYS[1], key)
local function after() if old then return keys, used - size(key, old) + bytes end return keys + 1, used + bytes end
if keys + 1 > maxKeys or used + bytes > maxBytes then
  local k, b = after()
  if k > maxKeys or b > maxBytes then
    local all = redis.call('HGETALL', KEYS[1])
    for i = 1, #all, 2 do
      if not live(all[i + 1], now) then
        redis.call('HDEL', KEYS[1], all[i])
        keys = keys - 1
        used = used - size(all[i], all[i + 1])
        if all[i] == key then old = nil end
      end
    end
    k, b = after()
    redis.call('HSET', KEYS[2], 'keys', keys, 'bytes', used)
    if k > maxKeys or b > maxBytes then return 0 end
  end
end
local k, b = after()
redis.call('HSET', KEYS[1], key, field)
redis.call('HSET', KEYS[2], 'keys', k, 'bytes', b)
return 1`;

// KEYS: data, usage. ARGV: key, now. Returns 1 when a live entry was deleted.
const DEL = `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local at = tonumber(string.match(v, '^(%d+)|'))
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[2], 'keys', -1)
redis.call('HINCRBY', KEYS[2], 'bytes', -(#ARGV[1] + #v - #string.match(v, '^%d+|')))
if at == 0 or at > tonumber(ARGV[2]) then return 1 end
return 0`;

// KEYS: data, usage. Returns the number of entries removed.
const CLEAR = `
local n = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return n`;

// KEYS: lock. ARGV: token. Deletes only the holder's lock.
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** The value JSON of a stored field when it has not expired, else null. */
function liveValue(field: string | null, now: number): string | null {
  if (field === null) return null;
  const bar = field.indexOf('|');
  const at = Number(field.slice(0, bar));
  return at === 0 || at > now ? field.slice(bar + 1) : null;
}

export function createRedisKvRepo(redis: Redis, clock: KvClock = Date.now): KvRepo {
  const get = async (pluginId: string, key: string) =>
    liveValue(await redis.hget(data(pluginId), checkKey(key)), clock());
  return {
    get,
    async set(pluginId, key, valueJson, ttlSec, quota) {
      checkKey(key);
      const now = clock();
      const at = expiresAt(ttlSec, now);
      checkValue(valueJson);
      const bytes = Buffer.byteLength(key) + Buffer.byteLength(valueJson);
      const ok = await redis.eval(
        SET,
        2,
        data(pluginId),
        usage(pluginId),
        key,
        `${at ?? 0}|${valueJson}`,
        bytes,
        quota.maxKeys,
        quota.maxBytes,
        now,
      );
      if (ok !== 1) throw quotaExceeded(quota);
    },
    del: async (pluginId, key) =>
      (await redis.eval(DEL, 2, data(pluginId), usage(pluginId), checkKey(key), clock())) === 1,
    exists: async (pluginId, key) => (await get(pluginId, key)) !== null,
    async listKeys(pluginId, pattern) {
      checkPattern(pattern);
      const now = clock();
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, flat] = await redis.hscan(data(pluginId), cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (let i = 0; i < flat.length; i += 2) if (liveValue(flat[i + 1]!, now) !== null) found.push(flat[i]!);
      } while (cursor !== '0' && found.length < 10_000);
      return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, 10_000);
    },
    clear: async (pluginId) => Number(await redis.eval(CLEAR, 2, data(pluginId), usage(pluginId))),
    async lock(pluginId, key, ttlSec) {
      checkKey(key);
      const ttl = checkTtl(ttlSec) ?? 30;
      const token = randomUUID();
      const ok = await redis.set(lockKey(pluginId, key), token, 'PX', Math.max(1, Math.round(ttl * 1000)), 'NX');
      return ok === 'OK' ? token : null;
    },
    unlock: async (pluginId, key, token) =>
      (await redis.eval(UNLOCK, 1, lockKey(pluginId, checkKey(key)), String(token))) === 1,
  };
}
