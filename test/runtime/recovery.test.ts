import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { eventually, fixture } from '../fixtures/plugin-fixtures.ts';

test('the runtime recovers after its process is killed, and the service keeps answering meanwhile', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': `export async function handler(c) { return c.params; }` } });
  const runtime = s.app.runtime;
  const pid = runtime.pid;
  assert.ok(pid);
  process.kill(pid, 'SIGKILL');
  const during = await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 1 } });
  assert.ok(during.status === 200 || during.status === 503, during.text);
  if (during.status === 503) {
    assert.equal(during.headers.get('retry-after'), '1');
    assert.equal(during.body.success, false);
  }
  assert.equal((await s.request('GET', '/api/v1/health', { auth: false })).status, 200);
  await eventually(async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 2 } })).body?.data === 2, 200);
  assert.notEqual(runtime.pid, pid);
});

test('a full queue answers 503 with Retry-After, never a bare 500', async (t) => {
  const s = await build(t, {
    plugins: { 'slow.ts': fixture('slow.ts') },
    env: { PLUGIN_THREADS: '1', PLUGIN_CONCURRENCY: '1', PLUGIN_MAX_QUEUE: '1' },
  });
  const results = await Promise.all(Array.from({ length: 8 }, () => s.request('POST', '/api/v1/plugins/slow/call', { body: {} })));
  const statuses = results.map((r) => r.status);
  assert.ok(statuses.includes(200), String(statuses));
  assert.ok(statuses.includes(503), String(statuses));
  for (const r of results.filter((x) => x.status === 503)) {
    assert.equal(r.headers.get('retry-after'), '1');
    assert.equal(r.body.success, false);
  }
  assert.ok(statuses.every((x) => x === 200 || x === 503), String(statuses));
});
