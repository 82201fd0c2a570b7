// Timers inside the sandbox: setTimeout/setInterval/clear*/queueMicrotask run inside the call, within its deadline,
// and nothing a call scheduled fires after its answer (the reference's Node timers would).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

// The reference's timer fixture, from its documented behaviour: a handler that waits on a timer and returns.
const SLEEPER = `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export async function handler({ params }) {
  const order = [];
  queueMicrotask(() => order.push('microtask'));
  const t = setTimeout(() => order.push('cleared'), 5);
  clearTimeout(t);
  setTimeout((a, b) => order.push('timeout ' + a + b), 10, 'x', 'y');
  let ticks = 0;
  await new Promise((resolve) => { const i = setInterval(() => { if (++ticks === 3) { clearInterval(i); resolve(); } }, 5); });
  await sleep(params.ms ?? 20);
  order.push('slept');
  const handle = setTimeout(() => {}, 1);
  return { order, ticks, unref: typeof handle.unref, primitive: typeof +handle };
}`;

// Schedules work that would run after the answer; a later call reads what the earlier one left behind.
const LEAKER = `
let fired = 0;
export async function handler({ params }) {
  if (params.check) return { fired };
  setTimeout(() => { fired++; }, 50);
  setInterval(() => { fired++; }, 10);
  return { scheduled: true };
}`;

const THROWER = `export async function handler() { setTimeout(() => { throw new TypeError('boom in a timer'); }, 1); await new Promise(() => {}); }`;
const FLOODER = `export async function handler() { try { for (let i = 0; i < 5000; i++) setTimeout(() => {}, 60000); } catch (e) { return { name: e.name, message: e.message }; } return 'no limit'; }`;
const FOREVER = `export const settings = { timeout: 0.5 };
export async function handler() { await new Promise((r) => setTimeout(r, 60000)); return 'woke'; }`;
const TOPLEVEL = `let ran = false; setTimeout(() => { ran = true; }, 1);
export async function handler() { await new Promise((r) => setTimeout(r, 20)); return { ran }; }`;

test('timers, intervals and microtasks run inside the call', async (t) => {
  const s = await build(t, { plugins: { 'sleeper.ts': SLEEPER } });
  const res = await s.request('POST', '/api/v1/plugins/sleeper/call', { body: { params: { ms: 30 } } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, {
    order: ['microtask', 'timeout xy', 'slept'],
    ticks: 3,
    unref: 'function',
    primitive: 'number',
  });
});

test('nothing a call scheduled fires after its answer', async (t) => {
  const s = await build(t, {
    plugins: { 'leaker.ts': LEAKER },
    env: { PLUGIN_THREADS: '1', PLUGIN_CONTEXT_MODE: 'warm' },
  });
  assert.equal(
    (await s.request('POST', '/api/v1/plugins/leaker/call', { body: { params: {} } })).body.data.scheduled,
    true,
  );
  await new Promise((r) => setTimeout(r, 200));
  // Same warm context (one thread, calls in sequence): its module state would show any timer that fired.
  const res = await s.request('POST', '/api/v1/plugins/leaker/call', { body: { params: { check: true } } });
  assert.deepEqual(res.body.data, { fired: 0 });
});

test('a timer is bounded by the call deadline: a sleep past it answers TIMEOUT', async (t) => {
  const s = await build(t, { plugins: { 'forever.ts': FOREVER } });
  const res = await s.request('POST', '/api/v1/plugins/forever/call', { body: {} });
  assert.equal(res.status, 504, res.text);
  assert.equal(res.body.data.code, 'TIMEOUT');
});

test('an exception in a timer callback ends the call with that error', async (t) => {
  const s = await build(t, { plugins: { 'thrower.ts': THROWER } });
  const res = await s.request('POST', '/api/v1/plugins/thrower/call', { body: {} });
  assert.equal(res.status, 500, res.text);
  assert.equal(res.body.data.code, 'TYPE_ERROR');
  assert.equal(res.body.error, 'boom in a timer');
});

test('pending timers per call are capped', async (t) => {
  const s = await build(t, { plugins: { 'flooder.ts': FLOODER } });
  const res = await s.request('POST', '/api/v1/plugins/flooder/call', { body: {} });
  assert.deepEqual(res.body.data, {
    name: 'RangeError',
    message: 'a plugin call may have at most 1000 timers pending',
  });
});

test('a timer set while the module loads never fires', async (t) => {
  const s = await build(t, { plugins: { 'toplevel.ts': TOPLEVEL } });
  const res = await s.request('POST', '/api/v1/plugins/toplevel/call', { body: {} });
  assert.deepEqual(res.body.data, { ran: false });
});
