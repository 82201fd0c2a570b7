// Break 4 of issue 23: the rate limit is per API key. One key exhausting its budget leaves every other key (and the
// admin API_KEY) alone; a key's record may carry its own limit; with Redis the buckets are named by key id, never a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { API_KEY, build, request, type TestServer } from '../helper.ts';
import { REDIS_URL, redisReachable } from '../support/redis.ts';

const PLUGIN = 'export async function handler() { return "ok"; }';
// Every authenticated route counts, minting keys too: the admin key mints two and calls once within its burst of 5.
const LIMITED = { RATE_LIMIT_RPS: '5', RATE_LIMIT_BURST: '5' };

async function keyWith(
  s: TestServer,
  body: Record<string, unknown>,
): Promise<{ id: string; value: string; rate_limit: unknown }> {
  const res = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'k', permissions: ['plugin:all:execute'], ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** Calls the plugin as `secret` until answered 429 (a bounded number of times); returns how many passed. */
async function exhaust(s: TestServer, secret: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const res = await request(s.url, 'POST', '/api/v1/plugins/echo/call', { auth: `Bearer ${secret}`, body: {} });
    if (res.status === 429) {
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      return i;
    }
    assert.equal(res.status, 200, res.text);
  }
  assert.fail('never rate limited');
}

const call = (s: TestServer, auth?: string) =>
  request(s.url, 'POST', '/api/v1/plugins/echo/call', { ...(auth ? { auth: `Bearer ${auth}` } : {}), body: {} });

async function oneKeyDoesNotLimitAnother(s: TestServer): Promise<{ a: { id: string; value: string } }> {
  const a = await keyWith(s, {});
  const b = await keyWith(s, {});
  await exhaust(s, a.value);
  assert.equal((await call(s, b.value)).status, 200, 'another key has its own bucket');
  assert.equal((await call(s)).status, 200, 'the admin key has its own bucket');
  return { a };
}

test('one key on 429 does not put another key, nor the admin key, on 429', async (t) => {
  const s = await build(t, { env: LIMITED, plugins: { 'echo.ts': PLUGIN } });
  await oneKeyDoesNotLimitAnother(s);
  // The admin key is limited too, in its own bucket.
  await exhaust(s, API_KEY);
});

test("a key's own rate_limit replaces the default, and is validated", async (t) => {
  const s = await build(t, {
    env: { RATE_LIMIT_RPS: '1000', RATE_LIMIT_BURST: '1000' },
    plugins: { 'echo.ts': PLUGIN },
  });
  const slow = await keyWith(s, { rate_limit: { requests_per_second: 1, burst_size: 1 } });
  assert.deepEqual(slow.rate_limit, { requests_per_second: 1, burst_size: 1 });
  const passed = await exhaust(s, slow.value);
  assert.ok(passed < 10, `the key's own limit applies (${passed} passed)`);
  const other = await keyWith(s, {});
  assert.equal((await call(s, other.value)).status, 200);
  for (const rate_limit of [
    { requests_per_second: 0, burst_size: 1 },
    { requests_per_second: 5, burst_size: 2 },
    { requests_per_second: 1 },
    { requests_per_second: 1, burst_size: 1, extra: 1 },
  ]) {
    const res = await s.request('POST', '/api/v1/api-keys', {
      body: { name: 'x', permissions: ['plugin:all:read'], rate_limit },
    });
    assert.equal(res.status, 400, `${JSON.stringify(rate_limit)}: ${res.text}`);
    assert.match(res.body.error, /rate_limit/);
  }
});

test('with Redis: buckets are per key id, never named by a secret', {
  skip: !(await redisReachable()) && 'no Redis answers',
}, async (t) => {
  const s = await build(t, { env: { ...LIMITED, REDIS_URL }, plugins: { 'echo.ts': PLUGIN } });
  const { a } = await oneKeyDoesNotLimitAnother(s);
  const redis = new Redis(REDIS_URL);
  t.after(() => redis.quit());
  const names = await redis.keys('relaybox:rl:*');
  assert.ok(
    names.some((n) => n.endsWith(`key:${a.id}`)),
    `a bucket named by the key id: ${names.join(', ')}`,
  );
  assert.ok(!names.some((n) => n.includes(a.value) || n.includes(API_KEY)), 'no secret in a bucket name');
});
