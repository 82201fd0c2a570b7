// After a load, the runtime process gives its memory back once no call has completed for a few seconds
// (runtime/process/server.ts, runtime/worker/worker.ts): its main thread and each worker collect their V8 heap, and
// each worker disposes the idle isolates a burst grew. Each says so at debug level ('idle: memory given back').
// Also: the collection goes through the inspector, not --expose-gc, so no plugin isolate ever sees a `gc` global.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forkRuntime } from '../../src/plugin-host/runtime-process.ts';
import { RUNTIME_LIMITS } from '../../src/plugin-host/limits.ts';
import { RUNTIME_PROCESS } from '../../runtime/common/process-flags.ts';
import type { CallInput, ChildMessage, ParentMessage, RuntimeOptions } from '../../runtime/protocol.ts';

// Garbage in the isolate, a 256 KiB result through the worker and the main thread, and a timer, so that the calls of
// one burst overlap and each worker warms several contexts of the plugin.
const BURST = `
export async function handler(c) {
  const junk = [];
  for (let i = 0; i < 2000; i++) junk.push({ i, s: 'x' + i });
  await new Promise((r) => setTimeout(r, 5));
  return { gc: typeof gc, n: junk.length, pad: 'y'.repeat(256 * 1024) };
}`;

type Released = { thread: string; heapBefore: number; heapAfter: number; isolates: number };

test('after a burst of calls and a few idle seconds, every thread of the runtime gives its memory back; no isolate sees gc', {
  timeout: 120_000,
}, async (t) => {
  assert.ok(
    !RUNTIME_PROCESS.execArgv.some((a) => /expose[-_]gc/.test(a)),
    'the runtime process does not run with --expose-gc',
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-idle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'burst.ts'), BURST);

  const proc = forkRuntime();
  t.after(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const results = new Map<number, (msg: Extract<ChildMessage, { t: 'result' }>) => void>();
  let released: Released[] = [];
  let ready: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const onMessage = (msg: ChildMessage): void => {
    if (msg.t === 'batch') return msg.msgs.forEach(onMessage);
    if (msg.t === 'ready') ready();
    if (msg.t === 'result') results.get(msg.id)?.(msg);
    if (msg.t === 'log' && msg.msg === 'idle: memory given back') released.push(msg.data as Released);
  };
  proc.on('message', onMessage);
  const send = (msg: ParentMessage) => proc.send(msg);
  const options: RuntimeOptions = {
    pluginsDir: dir,
    plugins: [],
    contextMode: 'warm',
    threads: 2,
    concurrency: 8,
    maxQueue: 1000,
    limits: RUNTIME_LIMITS,
    defaults: { max_concurrent_calls: 16, max_queued_calls: 1000, kv_max_keys: 100, kv_max_bytes: 1 << 20 },
    quarantine: {},
    cache: [],
  };
  send({ t: 'init', options });
  await isReady;

  let nextId = 0;
  const call = () =>
    new Promise<Extract<ChildMessage, { t: 'result' }>>((resolve) => {
      const id = ++nextId;
      results.set(id, resolve);
      const input: CallInput = { params: {}, headers: {}, route: '', method: 'POST', query: {}, requestId: `r${id}` };
      send({ t: 'call', id, plugin: 'burst', method: 'POST', requestId: `r${id}`, input: JSON.stringify(input) });
    });
  const gcSeen = async (): Promise<string> => {
    const r = await call();
    assert.ok(r.ok, JSON.stringify(r));
    return (JSON.parse(r.result) as { gc: string }).gc;
  };

  for (let round = 0; round < 8; round++) {
    const burst = await Promise.all(Array.from({ length: 32 }, call));
    for (const r of burst) assert.ok(r.ok, JSON.stringify(r));
    if (round === 0)
      assert.equal((JSON.parse((burst[0] as { result: string }).result) as { gc: string }).gc, 'undefined');
  }
  // What came before the burst's end (the release of the start's own garbage) does not count.
  released = [];

  // Idle now: the release comes a few seconds on. Wait for the main thread and both workers (no time asserted).
  while (
    !(
      released.some((r) => r.thread === 'main') &&
      new Set(released.filter((r) => r.thread !== 'main').map((r) => r.thread)).size === 2
    )
  ) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const main = released.find((r) => r.thread === 'main')!;
  assert.ok(main.heapAfter < main.heapBefore, `main thread collected: ${JSON.stringify(main)}`);
  const workers = released.filter((r) => r.thread !== 'main');
  for (const w of workers) {
    assert.ok(w.heapAfter < w.heapBefore, `worker collected: ${JSON.stringify(w)}`);
    assert.ok(w.isolates >= 1, `the isolate the burst grew was disposed: ${JSON.stringify(w)}`);
  }

  // The next calls build the isolate again, and it has no gc either.
  assert.equal(await gcSeen(), 'undefined');
  assert.equal(await gcSeen(), 'undefined');

  // A second idle spell after a single call: nothing grew, so no worker disposes its one-context isolate again.
  released = [];
  while (new Set(released.filter((r) => r.thread !== 'main').map((r) => r.thread)).size < 2)
    await new Promise((r) => setTimeout(r, 200));
  for (const w of released.filter((r) => r.thread !== 'main')) assert.equal(w.isolates, 0, JSON.stringify(w));

  send({ t: 'shutdown' });
  await new Promise((r) => proc.once('exit', r));
});
