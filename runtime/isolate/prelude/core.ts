// Prelude part 1 (runs INSIDE the isolate, strict mode): the intrinsics it captures before any plugin code runs,
// the one-way channel to the host, console capture, and the context's `api` and `kv`.
// Every host-bound value is a primitive made here; nothing reachable from plugin code holds a host handle.

export const CORE = String.raw`
const hostRef = $0;
const limits = $1;
const memoryMb = $2;
const G = globalThis;
const apply = Reflect.apply;
const construct = Reflect.construct;
const stringify = JSON.stringify;
const parse = JSON.parse;
const ErrorC = Error;
const TypeErrorC = TypeError;
const RangeErrorC = RangeError;
const PromiseC = Promise;
const StringC = String;
const isArray = Array.isArray;
const NumberIsInteger = Number.isInteger;
const NumberIsFinite = Number.isFinite;
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const ObjectHasOwn = Object.hasOwn;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const StringSlice = String.prototype.slice;
const StringTrim = String.prototype.trim;
const SymbolToString = Symbol.prototype.toString;
const PromiseResolve = Promise.resolve;
const PromiseReject = Promise.reject;
const WeakSetC = WeakSet;
const WeakSetAdd = WeakSet.prototype.add;
const WeakSetHas = WeakSet.prototype.has;
const sendIgnored = hostRef.applyIgnored;
// Null prototypes: isolated-vm reads absent options (reference, timeout, …) through the prototype chain, so a
// getter the plugin put on Object.prototype would otherwise run inside the host call and could change its options.
const sendOpts = ObjectFreeze({ __proto__: null, arguments: ObjectFreeze({ __proto__: null, copy: true }) });
const API_ERROR = 'RelayerApiError';

// A call's synchronous first entry (runtime/worker/sandbox.ts enterFirst) asks for its 'done' to be held, and
// takes it with \`collect\` as that entry's own result: no message, no wake of the worker. Only while nothing else
// was sent in that entry, so that the host still sees every message in the order it was sent.
let holding = false;
let sentWhileHolding = false;
let held;

/** The only way out of the isolate: a fire-and-forget message of primitives, read and checked by the host. */
function send(kind, seq, a, b, c, d) {
  if (holding) sentWhileHolding = true;
  apply(sendIgnored, hostRef, [undefined, [kind, seq, a, b, c, d], sendOpts]);
}
const slice = (s, n) => apply(StringSlice, s, [0, n]);
const resolved = (v) => apply(PromiseResolve, PromiseC, [v]);
const rejected = (e) => apply(PromiseReject, PromiseC, [e]);
/** Own data only: a getter the plugin put on Object.prototype never answers for a missing key. */
const own = (o, k) => (o !== null && typeof o === 'object' && ObjectHasOwn(o, k) ? o[k] : undefined);
/** Defines instead of assigning: assignment would run a setter the plugin put on Object.prototype. */
function setOwn(o, k, v) {
  ObjectDefineProperty(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
}

// ── per-call state (a context serves one call at a time; the host never enters it between calls) ──────────
let current = 0;
let finished = true;
let nextRequest = 0;
let pending = { __proto__: null };
let logText = '';
let logCount = 0;
let logBytes = 0;
let dropped = 0;
let lastProblem = '';

function fmt(v) {
  if (typeof v === 'string') return v;
  if (v instanceof ErrorC) return StringC(v.message);
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return StringC(v) + 'n';
  if (typeof v === 'function') return '[Function' + (v.name ? ': ' + v.name : ' (anonymous)') + ']';
  if (typeof v === 'symbol') return apply(SymbolToString, v, []);
  if (typeof v === 'object' && v !== null) {
    try {
      const s = stringify(v, (k, x) => (typeof x === 'bigint' ? StringC(x) : x));
      return s === undefined ? StringC(v) : s;
    } catch {
      return '[object]';
    }
  }
  return StringC(v);
}

function push(level, args) {
  let message = '';
  for (let i = 0; i < args.length; i++) {
    const part = fmt(args[i]);
    message += (i ? ' ' : '') + (typeof part === 'string' ? part : '');
    if (message.length > limits.maxLogLineBytes) break;
  }
  if (level === 'error' || level === 'warn') lastProblem = slice(message, limits.maxErrorMessageChars);
  if (dropped > 0 || logCount >= limits.maxLogLines) { dropped++; return; }
  if (message.length > limits.maxLogLineBytes) message = slice(message, limits.maxLogLineBytes) + '… [truncated]';
  if (logBytes + message.length > limits.maxLogBytes) { dropped++; return; }
  logBytes += message.length;
  // Built as text, never through an array: Array.prototype setters and push are the plugin's to replace.
  logText += (logCount++ ? ',' : '') + '{"level":"' + level + '","message":' + stringify(message) + '}';
}

const consoleObject = {};
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  consoleObject[level] = function (...args) { push(level, args); };
}
consoleObject.trace = consoleObject.debug;
G.console = consoleObject;

function sanitize(k, v) {
  switch (typeof v) {
    case 'bigint': return StringC(v);
    case 'undefined': return null;
    case 'function':
    case 'symbol': throw new TypeErrorC('a ' + typeof v + ' is not a JSON value' + (k ? ' (at key "' + k + '")' : ''));
  }
  return v;
}

function toJson(v) {
  const s = stringify(v === undefined ? null : v, sanitize);
  return typeof s === 'string' ? s : 'null';
}

const hostErrors = new WeakSetC();
function apiError(code, message, status, details) {
  const e = new ErrorC(message);
  setOwn(e, 'name', API_ERROR);
  setOwn(e, 'code', code);
  setOwn(e, 'status', status);
  setOwn(e, 'details', details);
  apply(WeakSetAdd, hostErrors, [e]);
  return e;
}
const invalid = (message, details) => rejected(apiError('VALIDATION_FAILED', message, 400, details || {}));

/** One host call: its arguments are serialized and size-checked here, before anything crosses. */
function call(op, args, box) {
  if (finished) return rejected(apiError('CALL_ENDED', 'the plugin call this request belongs to has already finished', 409, {}));
  let json;
  try { json = toJson(args); } catch (e) { return rejected(e); }
  if (json.length > limits.maxHostArgBytes) return invalid('api/kv arguments exceed ' + limits.maxHostArgBytes + ' bytes', { limit: limits.maxHostArgBytes });
  const id = ++nextRequest;
  const seq = current;
  if (box) box.id = id;
  return new PromiseC((resolve, reject) => {
    pending[id] = [resolve, reject];
    send('call', seq, id, op, json);
  });
}

/**
 * Entry: the host hands in the reply to request \`id\` (JSON it built and bounded), or several at once as
 * \`[id, replyJson, id, replyJson, …]\` in place of \`id\`.
 */
function deliver(seq, id, reply) {
  if (seq !== current) return;
  if (typeof id === 'number') return settleRequest(id, reply);
  for (let i = 0; i + 1 < id.length; i += 2) settleRequest(id[i], id[i + 1]);
}

function settleRequest(id, reply) {
  const waiter = pending[id];
  if (waiter === undefined) return;
  delete pending[id];
  let r;
  try { r = parse(reply); } catch { r = undefined; }
  if (own(r, 'ok') === true) { waiter[0](own(r, 'value')); return; }
  const err = own(r, 'error');
  const message = own(err, 'message');
  const code = own(err, 'code');
  const status = own(err, 'status');
  const details = own(err, 'details');
  waiter[1](apiError(typeof code === 'string' ? code : 'INTERNAL', typeof message === 'string' ? message : 'host call failed', typeof status === 'number' ? status : 500, details !== null && typeof details === 'object' ? details : {}));
}

function transactionWait(tx, opts) {
  if (!tx || typeof tx !== 'object') return rejected(new TypeErrorC('transactionWait needs a transaction record'));
  const o = opts || {};
  return call('relayer.waitTransaction', { relayerId: tx.relayer_id, payload: { transactionId: tx.id, interval: o.interval, timeout: o.timeout } });
}

function withWait(tx) {
  // Not enumerable, so a plugin can return the record as is: JSON never sees the function.
  if (tx && typeof tx === 'object') ObjectDefineProperty(tx, 'wait', { __proto__: null, value: (opts) => transactionWait(tx, opts), enumerable: false, configurable: true, writable: true });
  return tx;
}

const api = ObjectFreeze({
  useRelayer(relayerId) {
    const r = (op, payload) => call('relayer.' + op, { relayerId, payload });
    return ObjectFreeze({
      getRelayer: () => r('getRelayer', {}),
      getRelayerStatus: () => r('getRelayerStatus', {}),
      rpc: (req) => r('rpc', req),
      signTransaction: (req) => r('signTransaction', req),
      // Our extension: \`sendTransaction(tx, { idempotencyKey })\` sends once per key (docs/transactions.md).
      sendTransaction: (req, opts) => {
        const key = opts === undefined || opts === null ? undefined : opts.idempotencyKey;
        if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 255)) return invalid('idempotencyKey must be a string of 1 to 255 printable ASCII characters');
        return call('relayer.sendTransaction', key === undefined ? { relayerId, payload: req } : { relayerId, payload: req, idempotencyKey: key }).then(withWait);
      },
      getTransaction: (req) => r('getTransaction', { transactionId: req && typeof req === 'object' ? req.transactionId : req }),
      listTransactions: (req) => r('listTransactions', req || {}),
      replaceTransaction: (transactionId, req) => r('replaceTransaction', { transactionId, request: req }),
      cancelTransaction: (transactionId) => r('cancelTransaction', { transactionId: transactionId && typeof transactionId === 'object' ? transactionId.transactionId : transactionId }),
    });
  },
  transactionWait,
});

// Refused here rather than shipped to the host: an 8 MB key, a NaN TTL (JSON would turn it into null, i.e. "never").
function keyProblem(key) {
  if (typeof key !== 'string' || key.length === 0 || key.length > limits.maxKvKeyLength) return 'invalid kv key: must be a string of 1 to ' + limits.maxKvKeyLength + ' characters matching ^[A-Za-z0-9:_-]+$';
  return '';
}
function ttlOf(opts) {
  const ttl = opts === undefined || opts === null ? undefined : opts.ttlSec;
  if (ttl === undefined) return undefined;
  if (typeof ttl !== 'number' || !NumberIsFinite(ttl) || ttl <= 0) return null;
  return ttl;
}
const BAD_TTL = 'invalid ttlSec: must be a finite, positive number of seconds';

const kv = ObjectFreeze({
  get(key) { const p = keyProblem(key); return p ? invalid(p) : call('kv.get', { key }); },
  set(key, value, opts) {
    const p = keyProblem(key);
    if (p) return invalid(p);
    const ttlSec = ttlOf(opts);
    if (ttlSec === null) return invalid(BAD_TTL);
    let json;
    try { json = toJson(value); } catch (e) { return rejected(e); }
    // Refused here, before a 10 MB value is copied through the worker, the runtime and the IPC channel.
    if (json.length > limits.maxKvValueBytes) return invalid('kv value exceeds ' + limits.maxKvValueBytes + ' bytes', { limit: limits.maxKvValueBytes });
    return call('kv.set', ttlSec === undefined ? { key, value } : { key, value, ttlSec });
  },
  del(key) { const p = keyProblem(key); return p ? invalid(p) : call('kv.del', { key }); },
  exists(key) { const p = keyProblem(key); return p ? invalid(p) : call('kv.exists', { key }); },
  listKeys(pattern) {
    const glob = pattern === undefined ? '*' : pattern;
    if (typeof glob !== 'string' || glob.length === 0 || glob.length > limits.maxKvKeyLength) return invalid('invalid kv pattern');
    return call('kv.listKeys', { pattern: glob });
  },
  clear: () => call('kv.clear', {}),
  async withLock(key, fn, opts) {
    const p = keyProblem(key);
    if (p) return invalid(p);
    const o = opts || {};
    const ttlSec = o.ttlSec === undefined ? 30 : ttlOf(o);
    if (ttlSec === null) return invalid(BAD_TTL);
    const token = await call('kv.lock', { key, ttlSec });
    if (!token) {
      if (o.onBusy === 'skip') return null;
      throw apiError('LOCK_BUSY', 'lock "' + key + '" is held by another call', 409, { key });
    }
    try {
      return await fn();
    } finally {
      await call('kv.unlock', { key, token });
    }
  },
});
`;
