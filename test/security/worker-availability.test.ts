// Class 2 and 5 of issue 13, as seen by the pool: no worker thread is ever blocked by a plugin. A plugin spinning
// in its isolate while more of its calls arrive (the old code then blocked the worker inside isolated-vm's lock)
// leaves every worker serving; a worker whose event loop does stop answering (fault injection through the app's
// overrides, `runtimeFaults`) is detected, replaced and counted, and readiness says so meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestResponse } from '../helper.ts';
import { ECHO, answersAgain, pause, plugin } from './sandbox-support.ts';
import { eventually } from '../support/eventually.ts';

test('calls of a plugin spinning in its isolate never block a worker: other plugins, health and readiness answer meanwhile', async (t) => {
  // A timeout long enough for the 40 other calls to be served before it on a loaded machine.
  const spinner = plugin(`await kv.get('x'); for (;;) {}`, `export const settings = { timeout: 8 };`);
  const s = await build(t, { env: { PLUGIN_THREADS: '2' }, plugins: { 'spinner.ts': spinner, 'echo.ts': ECHO } });
  let spinnersDone = false;
  const spinners = Promise.all(
    Array.from({ length: 6 }, () => s.request('POST', '/api/v1/plugins/spinner/call', { body: {} })),
  ).then((all) => {
    spinnersDone = true;
    return all;
  });
  await pause(300);
  for (let round = 0; round < 5; round++) {
    const echoes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } })),
    );
    echoes.forEach((r, i) => assert.equal(r.body?.data, i, r.text));
    assert.equal((await s.request('GET', '/api/v1/ready', { auth: false })).status, 200);
  }
  assert.equal(spinnersDone, false, 'the other calls were served while the spinners still ran');
  for (const r of await spinners) {
    // The first spinner of an isolate times out; the others queued behind it in the same isolate are reset with it.
    assert.ok(r.status === 504 || r.status === 503, r.text);
    if (r.status === 503) assert.equal(r.headers.get('retry-after'), '1');
  }
  await answersAgain(s, 'echo');
});

async function metric(s: { request(m: string, p: string): Promise<TestResponse> }, name: string): Promise<number> {
  const text = (await s.request('GET', '/metrics')).text;
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
}

test('a worker whose event loop stops answering is detected, replaced and counted; readiness reports it meanwhile', async (t) => {
  const s = await build(t, {
    env: { PLUGIN_THREADS: '1' },
    runtimeFaults: { stallWorkerOn: 'stall' },
    plugins: { 'stall.ts': ECHO, 'echo.ts': ECHO },
  });
  assert.equal(await metric(s, 'relaybox_runtime_worker_stalls_total'), 0);
  const stalled = s.request('POST', '/api/v1/plugins/stall/call', { body: {} });
  let sawNotReady = false;
  for (let i = 0; i < 100 && !sawNotReady; i++) {
    const ready = await s.request('GET', '/api/v1/ready', { auth: false });
    if (ready.status === 503) {
      sawNotReady = true;
      assert.match(ready.body.reason, /runtime/);
    }
    await pause(100);
  }
  assert.ok(sawNotReady, '/api/v1/ready reported the pool that could not serve');
  const res = await stalled;
  assert.equal(res.status, 503, res.text);
  assert.equal(res.headers.get('retry-after'), '1');
  await answersAgain(s, 'echo');
  await eventually(async () => (await s.request('GET', '/api/v1/ready', { auth: false })).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  assert.equal((await s.request('GET', '/api/v1/ready', { auth: false })).status, 200, 'ready again once replaced');
  assert.equal(await metric(s, 'relaybox_runtime_worker_stalls_total'), 1);
});
