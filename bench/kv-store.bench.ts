// Bench: one plugin KV get + set through the PostgreSQL repository and through the Redis repository (both check the
// quota), and as bare Redis GET + SET for scale: the measurement behind plugin KV living on Redis when REDIS_URL is set.
// Run: node bench/kv-store.bench.ts  (DATABASE_URL / REDIS_URL, defaults: the local servers; BENCH_OPS, default 2000)
import pg from 'pg';
import { Redis } from 'ioredis';
import { connect, migrate } from '../src/store/postgres/db.ts';
import { createPostgresKvRepo } from '../src/store/postgres/kv-repo.ts';
import { createRedisKvRepo } from '../src/store/redis-kv-repo.ts';

const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const OPS = Number(process.env.BENCH_OPS ?? 2000);
const name = `relaybox_kvbench_${process.pid}`;
const admin = async (text: string) => {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  await c.query(text).finally(() => c.end());
};
await admin(`CREATE DATABASE ${name}`);
const url = new URL(SERVER);
url.pathname = `/${name}`;
const conn = connect(url.toString(), { max: 16 });
await migrate(conn.db);
const kv = createPostgresKvRepo(conn.db);
const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
const quota = { maxKeys: 10_000, maxBytes: 64 << 20 };

async function rate(inflight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (next < OPS) await op(next++);
    }),
  );
  return OPS / ((performance.now() - t0) / 1000);
}

console.log(`${OPS} get + set pairs per row, one key per worker`);
console.log('| store | in flight | get+set pairs/s |\n|---|---:|---:|');
for (const inflight of [1, 16]) {
  const pgRate = await rate(inflight, async (i) => {
    const key = `k${i % inflight}`;
    const n = Number((await kv.get('bench', key)) ?? 0);
    await kv.set('bench', key, String(n + 1), undefined, quota);
  });
  const plugin = `kvbench-${process.pid}`;
  const redisKv = createRedisKvRepo(redis);
  const repoRate = await rate(inflight, async (i) => {
    const key = `k${i % inflight}`;
    const n = Number((await redisKv.get(plugin, key)) ?? 0);
    await redisKv.set(plugin, key, String(n + 1), undefined, quota);
  });
  await redisKv.clear(plugin);
  const redisRate = await rate(inflight, async (i) => {
    const key = `relaybox:kvbench:${process.pid}:k${i % inflight}`;
    const n = Number((await redis.get(key)) ?? 0);
    await redis.set(key, String(n + 1));
  });
  console.log(
    `| PostgreSQL repository | ${inflight} | ${Math.round(pgRate)} |\n| Redis repository (Lua, quota checked) | ${inflight} | ${Math.round(repoRate)} |\n| bare Redis GET + SET | ${inflight} | ${Math.round(redisRate)} |`,
  );
}
const keys = await redis.keys(`relaybox:kvbench:${process.pid}:*`);
if (keys.length) await redis.del(...keys);
redis.disconnect();
await conn.db.destroy();
await admin(`DROP DATABASE ${name} WITH (FORCE)`);
