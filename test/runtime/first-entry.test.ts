// A call's first entry runs synchronously on the worker's thread, cut at SYNC_SLICE_MS (runtime/worker/sandbox.ts
// enterFirst). A call cut there starts again in another context: nothing the cut attempt asked of the host may happen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { SYNC_SLICE_MS } from '../../runtime/worker/sandbox.ts';

// Each attempt writes a KV key of its own (a fresh UUID) before spinning: a cut attempt whose write leaked would
// leave two keys for one call.
const SPINNER = `
export async function handler({ kv, params }) {
  const wrote = kv.set('attempt:' + crypto.randomUUID(), 1);
  const until = Date.now() + params.spinMs;
  while (Date.now() < until) {}
  await wrote;
  const keys = await kv.listKeys('attempt:*');
  await Promise.all(keys.map((k) => kv.del(k)));
  return { attempts: keys.length, spun: params.spinMs };
}`;

test('a first entry past the synchronous slice starts over in another context, with no effect of the cut attempt', async (t) => {
  const s = await build(t, { plugins: { 'spin.ts': SPINNER } });
  const spinMs = SYNC_SLICE_MS * 4;
  // The first call of each worker is cut and run again; later ones start asynchronously. Either way: one write.
  for (let i = 0; i < 4; i++) {
    const res = await s.request('POST', '/api/v1/plugins/spin/call', { body: { params: { spinMs } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, { attempts: 1, spun: spinMs }, `call ${i}`);
  }
  // Short ones within the slice answer the same way.
  const quick = await s.request('POST', '/api/v1/plugins/spin/call', { body: { params: { spinMs: 0 } } });
  assert.deepEqual(quick.body.data, { attempts: 1, spun: 0 });
});

// A call that ends within its synchronous first entry hands its outcome back as that entry's result (prelude
// `collect`), but only when it sent nothing else: a host request it started and did not await still reaches the host,
// ahead of the answer, as when every outcome travelled as a message.
const FIRE_AND_FORGET = `
export async function handler({ kv, params }) {
  if (params.read) return { seen: await kv.get('fired') };
  kv.set('fired', params.value);
  return { returned: params.value };
}`;

test('a host request started and not awaited in a first entry still happens, and the call answers at once', async (t) => {
  const s = await build(t, { plugins: { 'fire.ts': FIRE_AND_FORGET } });
  for (let i = 0; i < 3; i++) {
    const fired = await s.request('POST', '/api/v1/plugins/fire/call', { body: { params: { value: i } } });
    assert.equal(fired.status, 200, fired.text);
    assert.deepEqual(fired.body.data, { returned: i });
    // The write was accepted before the answer; read it back until it lands (it is not awaited by the plugin).
    let seen: unknown;
    for (let k = 0; k < 200 && seen !== i; k++) {
      const read = await s.request('POST', '/api/v1/plugins/fire/call', { body: { params: { read: true } } });
      assert.equal(read.status, 200, read.text);
      seen = read.body.data.seen;
      if (seen !== i) await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(seen, i, `call ${i}: the un-awaited write reached the host`);
  }
});

// A call that does not end within its synchronous first entry has its deadline armed then (call-run.ts armDeadline):
// a warm call that waits on nothing still answers 504 TIMEOUT at its timeout, and the plugin keeps serving.
const HANGER = `
export const settings = { timeout: 1 };
export async function handler({ params }) {
  if (params.quick) return 'quick';
  await new Promise(() => {});
}`;

// Bounded: without its deadline the call would hang, and the test with it.
test('a warm call that never settles answers 504 TIMEOUT at its timeout', { timeout: 60_000 }, async (t) => {
  const s = await build(t, { plugins: { 'hang.ts': HANGER } });
  // Warm contexts on each worker first, so the hanging calls start in a synchronous first entry.
  for (let i = 0; i < 4; i++) {
    const quick = await s.request('POST', '/api/v1/plugins/hang/call', { body: { params: { quick: true } } });
    assert.equal(quick.status, 200, quick.text);
  }
  for (let i = 0; i < 2; i++) {
    const hung = await s.request('POST', '/api/v1/plugins/hang/call', { body: { params: {} } });
    assert.equal(hung.status, 504, hung.text);
    assert.equal(hung.body.data.code, 'TIMEOUT', hung.text);
  }
  const after = await s.request('POST', '/api/v1/plugins/hang/call', { body: { params: { quick: true } } });
  assert.equal(after.body.data, 'quick', after.text);
});
