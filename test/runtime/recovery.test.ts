import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
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
  await eventually(
    async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 2 } })).body?.data === 2,
    200,
  );
  assert.notEqual(runtime.pid, pid);
});

test('a full queue answers 503 with Retry-After, never a bare 500', async (t) => {
  const s = await build(t, {
    plugins: { 'slow.ts': fixture('slow.ts') },
    env: { PLUGIN_THREADS: '1', PLUGIN_CONCURRENCY: '1', PLUGIN_MAX_QUEUE: '1' },
  });
  const results = await Promise.all(
    Array.from({ length: 8 }, () => s.request('POST', '/api/v1/plugins/slow/call', { body: {} })),
  );
  const statuses = results.map((r) => r.status);
  assert.ok(statuses.includes(200), String(statuses));
  assert.ok(statuses.includes(503), String(statuses));
  for (const r of results.filter((x) => x.status === 503)) {
    assert.equal(r.headers.get('retry-after'), '1');
    assert.equal(r.body.success, false);
  }
  assert.ok(
    statuses.every((x) => x === 200 || x === 503),
    String(statuses),
  );
});

/** The runtime processes this test process started (the service runs in it): its children running the runtime's server. */
function runtimeProcesses(): number[] {
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const children = readdirSync(`/proc/${process.pid}/task`).flatMap((tid) =>
    read(`/proc/${process.pid}/task/${tid}/children`).split(' ').filter(Boolean).map(Number),
  );
  return children.filter((pid) => read(`/proc/${pid}/cmdline`).includes('runtime/process/server.ts'));
}

test('a runtime that can never start is restarted ever more slowly, not in a loop; it serves once it can start', async (t) => {
  // Every runtime process is killed as soon as it exists, for 4 s from before the service starts: none gets ready.
  const killed = new Set<number>();
  const killing = (async () => {
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      for (const pid of runtimeProcesses()) {
        if (killed.has(pid)) continue;
        killed.add(pid);
        process.kill(pid, 'SIGKILL');
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const s = await build(t, { plugins: { 'echo.ts': `export async function handler(c) { return c.params; }` } });
  assert.equal((await s.request('GET', '/api/v1/health', { auth: false })).status, 200);
  await killing;
  // Restarts 0, 0.2, 0.4, 0.8, 1.6 s apart (doubling up to 5 s): a handful in 4 s, not one every few milliseconds.
  assert.ok(killed.size >= 3 && killed.size <= 8, `${killed.size} runtime processes started in 4 s`);
  await eventually(
    async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 2 } })).body?.data === 2,
    200,
  );
});
