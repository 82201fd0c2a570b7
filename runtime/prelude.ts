// Source of the code each sandbox context runs before any plugin code: console capture, the context object
// (api, kv), result sanitizing and error normalizing. It runs INSIDE the isolate; it must never leave a host
// handle reachable: the host Reference lives only in this closure's scope ($0), never on a global.

/**
 * Evaluated with `context.evalClosure(PRELUDE, [hostRef, limits])`; returns `{ init, run }`:
 * - `init(factory)`: evaluates the plugin module (a CommonJS factory), returns `[hasHandler, settingsJson]`.
 * - `run(inputJson, configJson, emitLogs)`: one call; returns `[ok, resultOrErrorJson, logsJson]`,
 *   every JSON produced here with the intrinsics captured before plugin code ran.
 */
export const PRELUDE = String.raw`
const host = $0;
const limits = $1;
const G = globalThis;
const stringify = JSON.stringify;
const parse = JSON.parse;
const ErrorC = Error;
const TypeErrorC = TypeError;
const StringC = String;
const isArray = Array.isArray;
const NumberIsInteger = Number.isInteger;
const ObjectFreeze = Object.freeze;
const ObjectDefineProperty = Object.defineProperty;
const apply = Reflect.apply;
const hostApply = host.apply;
// Null prototypes: isolated-vm reads absent options (reference, timeout, …) through the prototype chain, so a
// getter the plugin put on Object.prototype would otherwise run inside the host call and could change its options.
const hostOpts = ObjectFreeze({ __proto__: null, arguments: ObjectFreeze({ __proto__: null, copy: true }), result: ObjectFreeze({ __proto__: null, promise: true, copy: true }) });
const API_ERROR = 'RelayerApiError';

let logs = [];
let logBytes = 0;
let dropped = 0;
let lastProblem = '';

function fmt(v) {
  if (typeof v === 'string') return v;
  if (v instanceof ErrorC) return StringC(v.message);
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return StringC(v) + 'n';
  if (typeof v === 'function') return '[Function' + (v.name ? ': ' + v.name : ' (anonymous)') + ']';
  if (typeof v === 'symbol') return v.toString();
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
  for (let i = 0; i < args.length; i++) message += (i ? ' ' : '') + fmt(args[i]);
  if (level === 'error' || level === 'warn') lastProblem = message;
  if (dropped > 0 || logs.length >= limits.maxLogLines) { dropped++; return; }
  if (message.length > limits.maxLogLineBytes) message = message.slice(0, limits.maxLogLineBytes) + '… [truncated]';
  if (logBytes + message.length > limits.maxLogBytes) { dropped++; return; }
  logBytes += message.length;
  logs.push({ level, message });
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
  return s === undefined ? 'null' : s;
}

async function call(op, args) {
  const reply = await apply(hostApply, host, [undefined, [op, toJson(args)], hostOpts]);
  const r = parse(reply);
  if (r.ok) return r.value;
  const e = new ErrorC(r.error.message);
  e.name = API_ERROR;
  e.code = r.error.code;
  e.status = r.error.status;
  e.details = r.error.details || {};
  throw e;
}

function transactionWait(tx, opts) {
  if (!tx || typeof tx !== 'object') throw new TypeErrorC('transactionWait needs a transaction record');
  const o = opts || {};
  return call('relayer.waitTransaction', { relayerId: tx.relayer_id, payload: { transactionId: tx.id, interval: o.interval, timeout: o.timeout } });
}

function withWait(tx) {
  // Not enumerable, so a plugin can return the record as is: JSON never sees the function.
  if (tx && typeof tx === 'object') ObjectDefineProperty(tx, 'wait', { value: (opts) => transactionWait(tx, opts), enumerable: false, configurable: true, writable: true });
  return tx;
}

const api = ObjectFreeze({
  useRelayer(relayerId) {
    const r = (op, payload) => call('relayer.' + op, { relayerId, payload });
    return ObjectFreeze({
      getRelayer: () => r('getRelayer', {}),
      getRelayerStatus: () => r('getRelayer', {}),
      sendTransaction: (req) => r('sendTransaction', req).then(withWait),
      getTransaction: (req) => r('getTransaction', { transactionId: req && typeof req === 'object' ? req.transactionId : req }),
      listTransactions: (req) => r('listTransactions', req || {}),
      replaceTransaction: (transactionId, req) => r('replaceTransaction', { transactionId, request: req }),
      cancelTransaction: (transactionId) => r('cancelTransaction', { transactionId: transactionId && typeof transactionId === 'object' ? transactionId.transactionId : transactionId }),
    });
  },
  transactionWait,
});

const kv = ObjectFreeze({
  get: (key) => call('kv.get', { key }),
  set(key, value, opts) {
    // Refused here, before a 10 MB value is copied through the worker, the runtime and the IPC channel.
    let json;
    try { json = toJson(value); } catch (e) { return Promise.reject(e); }
    if (json.length > limits.maxKvValueBytes) {
      const e = new ErrorC('kv value exceeds ' + limits.maxKvValueBytes + ' bytes');
      e.name = API_ERROR; e.code = 'VALIDATION_FAILED'; e.status = 400; e.details = { limit: limits.maxKvValueBytes };
      return Promise.reject(e);
    }
    return call('kv.set', { key, value, ttlSec: opts && opts.ttlSec });
  },
  del: (key) => call('kv.del', { key }),
  exists: (key) => call('kv.exists', { key }),
  listKeys: (pattern) => call('kv.listKeys', { pattern: pattern === undefined ? '*' : pattern }),
  clear: () => call('kv.clear', {}),
  async withLock(key, fn, opts) {
    const o = opts || {};
    const token = await call('kv.lock', { key, ttlSec: o.ttlSec === undefined ? 30 : o.ttlSec });
    if (!token) {
      if (o.onBusy === 'skip') return null;
      const e = new ErrorC('lock "' + key + '" is held by another call');
      e.name = API_ERROR; e.code = 'LOCK_BUSY'; e.status = 409; e.details = { key };
      throw e;
    }
    try {
      return await fn();
    } finally {
      await call('kv.unlock', { key, token });
    }
  },
});

let handler;

function init(factory) {
  const module = { exports: {} };
  factory(module, module.exports);
  const ns = module.exports;
  handler = ns && (typeof ns.handler === 'function' ? ns.handler
    : ns.default && typeof ns.default.handler === 'function' ? ns.default.handler
    : typeof ns.default === 'function' ? ns.default : undefined);
  let settings = 'null';
  try { settings = toJson(ns && ns.settings); } catch { settings = 'null'; }
  return [typeof handler === 'function', settings];
}

function errorJson(e) {
  let code = 'PLUGIN_ERROR';
  let status = 500;
  let message = '';
  let details;
  if (typeof e === 'string') {
    message = e;
  } else if (e !== null && typeof e === 'object') {
    let name = '';
    try {
      name = typeof e.name === 'string' ? e.name : '';
      message = typeof e.message === 'string' ? e.message : e instanceof ErrorC ? '' : fmt(e.message === undefined ? '' : e.message);
      if (name === 'PluginError' || name === API_ERROR) {
        if (typeof e.code === 'string' && e.code) code = e.code;
        status = NumberIsInteger(e.status) && e.status >= 400 && e.status <= 599 ? e.status : 400;
        details = e.details;
      } else if (e instanceof ErrorC) {
        code = name === 'TypeError' ? 'TYPE_ERROR' : name === 'ReferenceError' ? 'REFERENCE_ERROR' : name === 'SyntaxError' ? 'SYNTAX_ERROR' : 'PLUGIN_ERROR';
      } else {
        if (typeof e.code === 'string' && e.code) code = e.code;
        details = e.details;
      }
    } catch {
      message = '';
    }
  } else if (e !== undefined && e !== null) {
    message = fmt(e);
  }
  if (!message.trim()) message = lastProblem.trim() ? lastProblem : 'Plugin execution failed';
  let detailsJson = '{}';
  if (details !== undefined && details !== null) {
    try {
      detailsJson = toJson(typeof details === 'object' && !isArray(details) ? details : { value: details });
    } catch {
      detailsJson = '{}';
    }
  }
  if (detailsJson.length > limits.maxResultBytes) detailsJson = '{}';
  if (message.length > 4096) message = message.slice(0, 4096) + '… [truncated]';
  return '{"code":' + stringify(code) + ',"message":' + stringify(message) + ',"status":' + status + ',"details":' + detailsJson + '}';
}

function logsJson(emit) {
  if (!emit) return '';
  if (dropped > 0) logs.push({ level: 'warn', message: '[relaybox] ' + dropped + ' log line(s) dropped: limit is ' + limits.maxLogLines + ' lines / ' + limits.maxLogBytes + ' bytes per call' });
  return stringify(logs);
}

async function run(inputJson, configJson, emitLogs) {
  logs = []; logBytes = 0; dropped = 0; lastProblem = '';
  const input = parse(inputJson);
  const context = {
    params: input.params, api, kv, headers: input.headers, route: input.route, method: input.method,
    query: input.query, config: parse(configJson), requestId: input.requestId,
  };
  let value;
  try {
    if (typeof handler !== 'function') throw new TypeErrorC('plugin does not export a handler function');
    value = handler.length === 2 ? await handler(api, context.params) : await handler(context);
  } catch (e) {
    return [false, errorJson(e), logsJson(emitLogs)];
  }
  let out;
  try {
    out = toJson(value);
  } catch (e) {
    const why = e !== null && typeof e === 'object' && typeof e.message === 'string' ? e.message : 'not serializable';
    return [false, '{"code":"INVALID_RESULT","status":500,"message":' + stringify('Plugin result is not JSON-serializable: ' + why) + ',"details":{}}', logsJson(emitLogs)];
  }
  if (out.length > limits.maxResultBytes) {
    return [false, '{"code":"RESULT_TOO_LARGE","status":500,"message":"Plugin result exceeds ' + limits.maxResultBytes + ' bytes","details":{"limit":' + limits.maxResultBytes + '}}', logsJson(emitLogs)];
  }
  return [true, out, logsJson(emitLogs)];
}

return { init, run };
`;
