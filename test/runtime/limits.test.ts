import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { eventually, fixture } from '../fixtures/plugin-fixtures.ts';

const ECHO = `export async function handler(c) { return c.params; }`;

async function assertServiceAnswers(s: TestServer): Promise<void> {
  const health = await s.request('GET', '/api/v1/health', { auth: false });
  assert.equal(health.status, 200);
  // The runtime may be restarting after a catastrophic OOM: other calls answer again once it is back.
  await eventually(
    async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 7 } })).body?.data === 7,
    200,
  );
}

test('a synchronous infinite loop answers TIMEOUT 504 while other calls keep answering', async (t) => {
  const s = await build(t, { plugins: { 'loop.ts': fixture('infinite-loop.ts'), 'echo.ts': ECHO } });
  const [loop, echo, health] = await Promise.all([
    s.request('POST', '/api/v1/plugins/loop/call', { body: {} }),
    s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 1 } }),
    s.request('GET', '/api/v1/health', { auth: false }),
  ]);
  assert.equal(loop.status, 504, loop.text);
  assert.equal(loop.body.data.code, 'TIMEOUT');
  assert.equal(echo.body.data, 1);
  assert.equal(health.status, 200);
  // The plugin stays callable (and keeps timing out) once its isolate was replaced.
  assert.equal((await s.request('POST', '/api/v1/plugins/loop/call', { body: {} })).status, 504);
  await assertServiceAnswers(s);
});

test('an infinite loop after an await answers TIMEOUT 504', async (t) => {
  const s = await build(t, { plugins: { 'loop.ts': fixture('loop-after-await.ts'), 'echo.ts': ECHO } });
  const res = await s.request('POST', '/api/v1/plugins/loop/call', { body: {} });
  assert.equal(res.status, 504, res.text);
  assert.equal(res.body.data.code, 'TIMEOUT');
  await assertServiceAnswers(s);
});

test('a memory bomb answers MEMORY_LIMIT_EXCEEDED 500 and the service recovers', async (t) => {
  const s = await build(t, {
    plugins: { 'bomb.ts': fixture('memory-bomb.ts'), 'arrays.ts': fixture('array-bomb.ts'), 'echo.ts': ECHO },
  });
  for (const id of ['bomb', 'arrays']) {
    const res = await s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
    assert.equal(res.status, 500, `${id}: ${res.text}`);
    assert.equal(res.body.data.code, 'MEMORY_LIMIT_EXCEEDED', id);
    await assertServiceAnswers(s);
  }
});

test('a log flood is truncated and the truncation is marked', async (t) => {
  const s = await build(t, { plugins: { 'flood.ts': fixture('log-flood.ts') } });
  const res = await s.request('POST', '/api/v1/plugins/flood/call', { body: {} });
  assert.equal(res.status, 200);
  const logs = res.body.metadata.logs as Array<{ level: string; message: string }>;
  assert.ok(logs.length <= 201);
  assert.match(logs.at(-1)!.message, /log line\(s\) dropped/);
});

test('a call may make only a bounded number of api/kv calls', async (t) => {
  const plugin = `export async function handler({ kv }) { let ok = 0; try { for (;;) { await kv.exists('k'); ok++; } } catch (e) { return { ok, code: e.code }; } }`;
  const s = await build(t, { plugins: { 'chatty.ts': plugin } });
  const res = await s.request('POST', '/api/v1/plugins/chatty/call', { body: {} });
  assert.deepEqual(res.body.data, { ok: 100, code: 'API_CALL_LIMIT' });
});

test('a failed call that leaves a large heap gets a new isolate next time; a small failure keeps the warm one', async (t) => {
  // One thread, one call at a time: a single warm context serves every call, so `calls` tells when it was replaced.
  const plugin = `export const settings = { memory_mb: 128 };
    let calls = 0;
    export async function handler({ params }) {
      calls++;
      if (params === 'small-failure') throw new Error('small');
      if (params === 'large-failure') { const garbage = new Array(1e6).fill(1.5); throw new Error('large ' + garbage.length); }
      return calls;
    }`;
  const s = await build(t, {
    env: { PLUGIN_THREADS: '1', PLUGIN_CONCURRENCY: '1' },
    plugins: { 'stateful.ts': plugin },
  });
  const call = async (params: string) =>
    (await s.request('POST', '/api/v1/plugins/stateful/call', { body: { params } })).body;
  assert.equal((await call('ok')).data, 1);
  assert.equal((await call('ok')).data, 2);
  assert.equal((await call('small-failure')).success, false);
  assert.equal((await call('ok')).data, 4, 'a failure with a small heap keeps the warm isolate');
  assert.equal((await call('large-failure')).success, false);
  assert.equal((await call('ok')).data, 1, 'the ~20 MB heap left by the failed call went with its isolate');
});
