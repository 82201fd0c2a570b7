// The plugin KV repository on both stores: same answers for values, TTLs, globs, quotas and locks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createKvRepo } from '../../src/store/sqlite/kv-repo.ts';
import type { KvRepo } from '../../src/domain/kv/ports.ts';
import { createPostgresKvRepo, globToRegex } from '../../src/store/postgres/kv-repo.ts';
import { connect, migrate } from '../../src/store/postgres/db.ts';
import { createTestDatabase, createTestSchema, postgresReachable } from '../support/postgres.ts';
import { REDIS_URL, redisReachable } from '../support/redis.ts';
import { createRedisKvRepo } from '../../src/store/redis-kv-repo.ts';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const available = await postgresReachable();
const databaseUrl = available ? (await createTestDatabase('relaybox_kv')).url : '';
const redisUp = await redisReachable();

/** Every plugin id prefixed with this test's own tag, so tests sharing one Redis never meet; its keys go at the end. */
function namespaced(repo: KvRepo, tag: string): KvRepo {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repo))
    wrapped[name] = (plugin: string, ...rest: unknown[]) =>
      (fn as (...a: unknown[]) => unknown)(`${tag}-${plugin}`, ...rest);
  return wrapped as unknown as KvRepo;
}
const quota = { maxKeys: 3, maxBytes: 200 };
const big = { maxKeys: 1000, maxBytes: 1 << 20 };

/** A ValidationError whose reason (the text the API answers with) matches. */
const refused = (re: RegExp) => (err: unknown) => re.test((err as { reason?: string }).reason ?? '');

/**
 * The clock the repository reads expiries against: it stands still until a test moves it, so an entry with a short
 * TTL is there when read back at once however loaded the machine is, and gone once the test steps past its TTL.
 */
function testClock() {
  let at = Date.now();
  return { now: () => at, advance: (ms: number) => void (at += ms) };
}
type Clock = ReturnType<typeof testClock>;

type Factory = (t: TestContext, clock: Clock) => Promise<KvRepo>;

const adapters: Array<[string, Factory, string | undefined]> = [
  [
    'SQLite',
    async (t, clock) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-kv-'));
      const db = openDatabase(dir);
      t.after(() => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return createKvRepo(db, clock.now);
    },
    undefined,
  ],
  [
    'PostgreSQL',
    async (t, clock) => {
      const schema = await createTestSchema(databaseUrl);
      const conn = connect(schema.url, { max: 3 });
      await migrate(conn.db);
      t.after(async () => {
        await conn.db.destroy();
        await schema.drop();
      });
      return createPostgresKvRepo(conn.db, clock.now);
    },
    available ? undefined : 'no PostgreSQL server answers',
  ],
  [
    'Redis',
    async (t, clock) => {
      const redis = new Redis(REDIS_URL);
      const tag = `t${randomUUID().slice(0, 8)}`;
      t.after(async () => {
        const keys = await redis.keys(`relaybox:kv:{${tag}-*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      });
      return namespaced(createRedisKvRepo(redis, clock.now), tag);
    },
    redisUp ? undefined : 'no Redis answers',
  ],
];

for (const [name, factory, skip] of adapters) {
  describe(`${name} plugin KV`, { skip }, () => {
    test('values per plugin namespace; delete, exists, clear', async (t) => {
      const kv = await factory(t, testClock());
      await kv.set('p1', 'a', '"one"', undefined, big);
      await kv.set('p2', 'a', '"other"', undefined, big);
      assert.equal(await kv.get('p1', 'a'), '"one"');
      assert.equal(await kv.get('p2', 'a'), '"other"');
      assert.equal(await kv.exists('p1', 'a'), true);
      assert.equal(await kv.del('p1', 'a'), true);
      assert.equal(await kv.del('p1', 'a'), false);
      assert.equal(await kv.get('p1', 'a'), null);
      await kv.set('p1', 'x', '1', undefined, big);
      await kv.set('p1', 'y', '2', undefined, big);
      assert.equal(await kv.clear('p1'), 2);
      assert.equal(await kv.get('p2', 'a'), '"other"');
    });

    test('a TTL expires the entry; bad keys and TTLs are refused', async (t) => {
      const clock = testClock();
      const kv = await factory(t, clock);
      await kv.set('p', 'short', '1', 0.05, big);
      assert.equal(await kv.get('p', 'short'), '1');
      clock.advance(49);
      assert.equal(await kv.get('p', 'short'), '1', 'still there 1 ms before its TTL');
      clock.advance(1);
      assert.equal(await kv.get('p', 'short'), null);
      await assert.rejects(async () => kv.set('p', 'bad key!', '1', undefined, big), refused(/invalid kv key/));
      await assert.rejects(async () => kv.set('p', 'k', '1', -1, big), refused(/invalid ttlSec/));
    });

    test('listKeys matches Redis-style globs in key order', async (t) => {
      const kv = await factory(t, testClock());
      for (const k of ['user:2', 'user:10', 'user:1', 'order:1', 'userx']) await kv.set('p', k, '1', undefined, big);
      assert.deepEqual(await kv.listKeys('p', 'user:*'), ['user:1', 'user:10', 'user:2']);
      assert.deepEqual(await kv.listKeys('p', 'user:?'), ['user:1', 'user:2']);
      assert.deepEqual(await kv.listKeys('p', 'user:[12]'), ['user:1', 'user:2']);
      assert.deepEqual(await kv.listKeys('p', '*'), ['order:1', 'user:1', 'user:10', 'user:2', 'userx']);
    });

    test('the quota counts keys and bytes; an overwrite counts its new size only; expired entries make room', async (t) => {
      const clock = testClock();
      const kv = await factory(t, clock);
      await kv.set('p', 'a', '1', undefined, quota);
      await kv.set('p', 'b', '2', undefined, quota);
      await kv.set('p', 'c', '3', 0.05, quota);
      await assert.rejects(async () => kv.set('p', 'd', '4', undefined, quota), refused(/kv quota exceeded/));
      await kv.set('p', 'a', '11', undefined, quota);
      clock.advance(50);
      await kv.set('p', 'd', '4', undefined, quota);
      await assert.rejects(
        async () => kv.set('p', 'a', JSON.stringify('x'.repeat(300)), undefined, quota),
        refused(/kv quota exceeded/),
      );
      assert.equal(await kv.get('p', 'a'), '11');
    });

    test('a lock is held until unlocked with its token or expired', async (t) => {
      const clock = testClock();
      const kv = await factory(t, clock);
      const token = await kv.lock('p', 'job', 30);
      assert.ok(token);
      assert.equal(await kv.lock('p', 'job', 30), null);
      assert.equal(await kv.unlock('p', 'job', 'wrong-token'), false);
      assert.equal(await kv.unlock('p', 'job', token!), true);
      assert.ok(await kv.lock('p', 'job', 0.05));
      // Redis keeps a lock's TTL on its own clock (PX): the real wait is for it; a slow machine only waits longer.
      clock.advance(50);
      await new Promise((r) => setTimeout(r, 120));
      assert.ok(await kv.lock('p', 'job', 30), 'an expired lock can be taken');
    });
  });
}

test('globs become anchored regular expressions', () => {
  assert.equal(globToRegex('user:*'), '^user:.*$');
  assert.equal(globToRegex('a?[!x]'), '^a.[^x]$');
  assert.equal(globToRegex('a.b'), '^a\\.b$');
});
