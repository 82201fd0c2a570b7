// Prelude part (INSIDE the isolate): setTimeout, setInterval, clearTimeout, clearInterval, queueMicrotask.
//
// A timer is a request the worker answers itself (runtime/worker/call-run.ts): `toHost('timer', seq, id, ms)` starts a
// host timer under a hold of the call's scope; when it fires, its reply is delivered in the next entry and the
// callback runs there, inside the call's CPU and wall-clock budget. When the call answers, the scope cancels every
// timer still pending: nothing fires after the answer (the reference product's Node timers would). Outside a call
// (module top level) a timer is inert: no code runs outside the host's entries.

export const TIMERS = String.raw`
const WeakMapC = WeakMap;
const WeakMapGet = WeakMap.prototype.get;
const WeakMapSet = WeakMap.prototype.set;
const PromiseThen = Promise.prototype.then;
const TIMER_FIRED = 1;
let timers = { __proto__: null };
let timerCount = 0;
let nextTimer = 0;
const timerHandles = new WeakMapC();

function resetTimers() {
  timers = { __proto__: null };
  timerCount = 0;
}

/** As Node: a delay that is not a number in [1, 2^31 - 1] becomes 1 ms. */
function delayOf(ms) {
  const n = +ms;
  return n >= 1 && n <= 2147483647 ? MathFloorT(n) : 1;
}
const MathFloorT = Math.floor;

/** A callback that throws ends the call with that error, as an uncaught exception ends the reference's worker. */
function uncaught(e) {
  settle(current, false, e);
}

function armTimer(handle, t) {
  const id = ++nextRequest;
  t.req = id;
  pending[id] = [function () { fireTimer(handle, id); }, function () {}];
  send('timer', current, id, t.ms, 0, 0);
}

function fireTimer(handle, id) {
  const t = timers[handle];
  if (t === undefined || t.req !== id) return;
  if (t.repeat) armTimer(handle, t);
  else { delete timers[handle]; timerCount--; }
  try { apply(t.fn, undefined, t.args); } catch (e) { uncaught(e); }
}

/** What Node's setTimeout returns: clearTimeout takes it or its number; ref/unref/hasRef/refresh are accepted. */
class Timeout {
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() { return this; }
  close() { clearTimer(this); return this; }
  [Symbol.toPrimitive]() { return apply(WeakMapGet, timerHandles, [this]); }
}

function addTimer(fn, ms, args, repeat) {
  if (typeof fn !== 'function') throw new TypeErrorC('The "callback" argument must be of type function. Received ' + (fn === null ? 'null' : typeof fn));
  const handle = ++nextTimer;
  const timeout = new Timeout();
  apply(WeakMapSet, timerHandles, [timeout, handle]);
  if (finished) return timeout;
  if (timerCount >= limits.maxTimers) throw new RangeErrorC('a plugin call may have at most ' + limits.maxTimers + ' timers pending');
  const t = { __proto__: null, fn, args, ms: delayOf(ms), repeat, req: 0 };
  timers[handle] = t;
  timerCount++;
  armTimer(handle, t);
  return timeout;
}

function clearTimer(timeout) {
  const handle = typeof timeout === 'number' ? timeout : timeout !== null && typeof timeout === 'object' ? apply(WeakMapGet, timerHandles, [timeout]) : undefined;
  if (handle === undefined) return;
  const t = timers[handle];
  if (t === undefined) return;
  delete timers[handle];
  timerCount--;
  delete pending[t.req];
  if (!finished) send('untimer', current, t.req, 0, 0, 0);
}

define(G, 'setTimeout', function setTimeout(fn, ms, ...args) { return addTimer(fn, ms, args, false); });
define(G, 'setInterval', function setInterval(fn, ms, ...args) { return addTimer(fn, ms, args, true); });
define(G, 'clearTimeout', function clearTimeout(t) { clearTimer(t); });
define(G, 'clearInterval', function clearInterval(t) { clearTimer(t); });
define(G, 'queueMicrotask', function queueMicrotask(fn) {
  if (typeof fn !== 'function') throw new TypeErrorC('The "callback" argument must be of type function');
  apply(PromiseThen, resolved(undefined), [function () { try { fn(); } catch (e) { uncaught(e); } }]);
});
`;
