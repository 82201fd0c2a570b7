// Class 2 of issue 13: a call's lifetime ends with its answer. Whatever a plugin leaves behind (a continuation on a
// host call, a FinalizationRegistry callback, an Atomics.waitAsync, dozens of transactionWait pollers) never runs
// after the call answered: the runtime stays idle, the next call of the same context sees none of it (logs, api
// budget), and the host-side work is cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { ECHO, answersAgain, cpuTicks, pause, plugin } from './sandbox-support.ts';
import { eventually } from '../support/eventually.ts';

const SEND = `{ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, gas_price: 1000000000 }`;

const LEFTOVERS: Record<string, string> = {
  'spin-after-host-call': plugin(`kv.exists('a').then(() => { for (;;) {} }); return 'left a spinner';`),
  'spin-after-many-host-calls': plugin(
    `for (let i = 0; i < 20; i++) kv.get('k' + i).then(() => { for (;;) {} }); return 'left 20';`,
  ),
  'spin-in-finalizer': plugin(
    `const r = new FinalizationRegistry(() => { for (;;) {} }); for (let i = 0; i < 1000; i++) r.register({ i, pad: new Array(100) }, i); const junk = []; for (let i = 0; i < 2e5; i++) junk.push({ i }); return 'registered';`,
  ),
  'spin-after-wait-async': plugin(
    `let how = 'no waitAsync'; try { const ia = new Int32Array(new SharedArrayBuffer(4)); Atomics.waitAsync(ia, 0, 0, 20).value.then(() => { for (;;) {} }); how = 'waitAsync'; } catch (e) { how = e.constructor.name; } return how;`,
  ),
  'spin-after-wasm-compile': plugin(
    `const p = WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])); await p; return 'compiled';`,
  ),
};

async function runtimeIdle(s: TestServer, label: string): Promise<void> {
  await pause(300);
  const pid = s.app.runtime.pid;
  const before = cpuTicks(pid);
  await pause(1000);
  const used = cpuTicks(pid) - before;
  // A continuation spinning on its own would burn 100 ticks a second; the runtime's own pings cost a tick or two.
  assert.ok(used < 30, `${label}: the runtime used ${used} ticks of CPU in 1 s with no call running`);
}

test('nothing a call leaves behind runs after it answered; the runtime stays idle and keeps serving', async (t) => {
  const s = await build(t, {
    env: { PLUGIN_THREADS: '2' },
    plugins: {
      ...Object.fromEntries(Object.entries(LEFTOVERS).map(([id, src]) => [`${id}.ts`, src])),
      'echo.ts': ECHO,
    },
  });
  for (const id of Object.keys(LEFTOVERS)) {
    for (let i = 0; i < 3; i++) {
      const res = await s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
      assert.equal(res.status, 200, `${id}: ${res.text}`);
    }
    await runtimeIdle(s, id);
    const echoes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } })),
    );
    echoes.forEach((r, i) => assert.equal(r.body?.data, i, `${id}: echo after it`));
    assert.equal((await s.request('GET', '/api/v1/ready', { auth: false })).status, 200);
    t.diagnostic(`${id}: answered 3 times, runtime idle afterwards, 20 echo calls served`);
  }
});

test('the next call in a warm context gets no log line and no api budget from the previous one', async (t) => {
  // One worker, one call at a time: the same warm context would serve both calls if it were kept.
  const leaver = plugin(
    `if (context.params === 'leave') {
       kv.get('x').then(() => console.log('ghost of the first call'));
       kv.get('y').then(async () => { for (let i = 0; i < 100; i++) await kv.exists('z'); });
       return 'left';
     }
     let ok = 0;
     for (let i = 0; i < 100; i++) { await kv.exists('k'); ok++; }
     console.log('second call');
     return ok;`,
    `export const settings = { timeout: 5, emit_logs: true };`,
  );
  const s = await build(t, { env: { PLUGIN_THREADS: '1', PLUGIN_CONCURRENCY: '1' }, plugins: { 'leaver.ts': leaver } });
  assert.equal(
    (await s.request('POST', '/api/v1/plugins/leaver/call', { body: { params: 'leave' } })).body.data,
    'left',
  );
  const second = await s.request('POST', '/api/v1/plugins/leaver/call', { body: { params: 'count' } });
  assert.equal(second.status, 200, second.text);
  assert.equal(second.body.data, 100, 'the full api budget');
  assert.deepEqual(second.body.metadata.logs, [{ level: 'log', message: 'second call' }]);
});

test('host work a call started ends with it: transactionWait pollers stop when the call answers', async (t) => {
  const pollers = plugin(
    `const r = api.useRelayer('sepolia-example');
     const tx = await r.sendTransaction(${SEND});
     for (let i = 0; i < 60; i++) api.transactionWait(tx, { interval: 50, timeout: 60000 }).catch(() => {});
     await kv.get('settle');
     return tx.id;`,
    `export const settings = { timeout: 30 };`,
  );
  const thrower = plugin(
    `const r = api.useRelayer('sepolia-example');
     const tx = await r.sendTransaction(${SEND});
     for (let i = 0; i < 60; i++) api.transactionWait(tx, { interval: 50, timeout: 60000 }).catch(() => {});
     await kv.get('settle');
     throw new Error('gone, pollers left behind');`,
    `export const settings = { timeout: 30 };`,
  );
  const s = await build(t, {
    devnet: true,
    plugins: { 'pollers.ts': pollers, 'thrower.ts': thrower, 'echo.ts': ECHO },
  });
  const res = await s.request('POST', '/api/v1/plugins/pollers/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  await eventuallyZero(s, 'after a call that left 60 pollers');
  const failed = await s.request('POST', '/api/v1/plugins/thrower/call', { body: {} });
  assert.equal(failed.status, 500, failed.text);
  await eventuallyZero(s, 'after a failed call that left 60 pollers');
  await answersAgain(s);
});

async function eventuallyZero(s: TestServer, label: string): Promise<void> {
  await eventually(() => s.app.runtime.hostCallsInFlight() === 0, { timeoutMs: 30_000, intervalMs: 25 });
  assert.equal(s.app.runtime.hostCallsInFlight(), 0, `${label}: host calls still running`);
  await pause(300);
  assert.equal(s.app.runtime.hostCallsInFlight(), 0, `${label}: host calls started again`);
}
