// Prelude part 3 (INSIDE the isolate): the functions the host enters the isolate through, and the one message
// that reports how a call ended. No result travels through a promise the plugin can reach: `run` returns
// nothing, and the outcome leaves as primitives in a 'done' message (kind, JSON text, logs JSON, bytes reserved).

export const ENTRIES = String.raw`
let handler;
let legacyMain;
// The legacy form: \`runPlugin(main)\` (runtime/isolate/sdk/relayer-sdk.ts) registers \`main\` while the module loads.
define(G, Symbol.for('relaybox.runPlugin'), function runPlugin(main) { if (typeof main === 'function') legacyMain = main; });
const LEGACY_WARNING = '[DEPRECATED] Plugin uses the deprecated runPlugin pattern. Please migrate to the handler export pattern.';

/** Entry at load time: evaluates the plugin module (a CommonJS factory); returns JSON text made here, by hand. */
function init(factory, seed, envJson) {
  reseed(seed);
  setProcess(envJson);
  const module = { exports: {} };
  factory(module, module.exports);
  const ns = module.exports;
  handler = ns && (typeof ns.handler === 'function' ? ns.handler
    : ns.default && typeof ns.default.handler === 'function' ? ns.default.handler
    : typeof ns.default === 'function' ? ns.default : undefined);
  if (typeof handler !== 'function' && typeof legacyMain === 'function') {
    const main = legacyMain;
    // Two parameters: called as (api, params), as the reference's executor calls a runPlugin function.
    handler = function legacy(api, params) { push('warn', [LEGACY_WARNING]); return main(api, params); };
  }
  let settings = 'null';
  try { settings = toJson(ns && ns.settings); } catch { settings = 'null'; }
  if (settings.length > limits.maxErrorDetailsBytes) settings = 'null';
  return '{"hasHandler":' + (typeof handler === 'function') + ',"reserved":' + reservedBytes + ',"settings":' + settings + '}';
}

function errorJson(e) {
  let code = 'PLUGIN_ERROR';
  let status = 500;
  let message = '';
  let details;
  if (typeof e === 'string') {
    message = e;
  } else if (e !== null && typeof e === 'object') {
    // Each property is read once: a getter or a Proxy may answer differently on every read.
    try {
      const rawName = e.name;
      const rawMessage = e.message;
      const name = typeof rawName === 'string' ? rawName : '';
      message = typeof rawMessage === 'string' ? rawMessage : e instanceof ErrorC ? '' : fmt(rawMessage === undefined ? '' : rawMessage);
      if (name === 'PluginError' || name === API_ERROR) {
        const rawCode = e.code;
        const rawStatus = e.status;
        if (typeof rawCode === 'string' && rawCode) code = rawCode;
        status = NumberIsInteger(rawStatus) && rawStatus >= 400 && rawStatus <= 599 ? rawStatus : 400;
        details = e.details;
      } else {
        // As the reference's executor: the kind of a built-in error names it; otherwise the error's own code; and
        // any error's own status and details are honoured.
        const byName = name === 'TypeError' ? 'TYPE_ERROR' : name === 'ReferenceError' ? 'REFERENCE_ERROR' : name === 'SyntaxError' ? 'SYNTAX_ERROR' : '';
        const rawCode = e.code;
        const rawStatus = e.status;
        code = byName || (typeof rawCode === 'string' && rawCode ? rawCode : 'PLUGIN_ERROR');
        if (NumberIsInteger(rawStatus) && rawStatus >= 400 && rawStatus <= 599) status = rawStatus;
        details = e.details;
      }
    } catch {
      message = '';
    }
  } else if (e !== undefined && e !== null) {
    message = fmt(e);
  }
  // A getter or Proxy may hand back anything, a different value on each read: only this one copy is used.
  if (typeof message !== 'string') message = '';
  if (message.length > limits.maxErrorMessageChars) message = slice(message, limits.maxErrorMessageChars) + '… [truncated]';
  if (!apply(StringTrim, message, []).length) message = apply(StringTrim, lastProblem, []).length ? lastProblem : 'Plugin execution failed';
  if (code.length > 64) code = 'PLUGIN_ERROR';
  let detailsJson = '{}';
  if (details !== undefined && details !== null) {
    try {
      detailsJson = toJson(typeof details === 'object' && !isArray(details) ? details : { value: details });
    } catch {
      detailsJson = '{}';
    }
  }
  if (detailsJson.length > limits.maxErrorDetailsBytes) detailsJson = '{"truncated":true}';
  return '{"code":' + stringify(code) + ',"message":' + stringify(message) + ',"status":' + status + ',"details":' + detailsJson + '}';
}

function finish(seq, kind, text) {
  if (seq !== current || finished) return;
  finished = true;
  let logs = '';
  if (emitLogs) {
    if (dropped > 0) {
      const note = '[relaybox] ' + dropped + ' log line(s) dropped: limit is ' + limits.maxLogLines + ' lines / ' + limits.maxLogBytes + ' bytes per call';
      logText += (logCount ? ',' : '') + '{"level":"warn","message":' + stringify(note) + '}';
    }
    logs = '[' + logText + ']';
  }
  // The common ending (a result, no logs asked for, nothing reserved) is held as its text alone: a string leaves the
  // isolate far cheaper than an array does (measured: ~6,000 instructions less per call, a fifth of an entry).
  if (holding && !sentWhileHolding) held = kind === 'ok' && logs === '' && reservedBytes === 0 ? text : [kind, text, logs, reservedBytes];
  else send('done', seq, kind, text, logs, reservedBytes);
}

function settle(seq, ok, value) {
  if (seq !== current || finished) return;
  if (!ok) {
    let memory = false;
    try { memory = memoryRefused || isMemoryError(value); } catch { memory = memoryRefused; }
    if (memory) return finish(seq, 'memory', '');
    let json;
    try { json = errorJson(value); } catch { json = '{"code":"PLUGIN_ERROR","message":"Plugin execution failed","status":500,"details":{}}'; }
    return finish(seq, 'error', json);
  }
  let out;
  try {
    out = toJson(value);
  } catch (e) {
    if (memoryRefused || isMemoryError(e)) return finish(seq, 'memory', '');
    const why = e !== null && typeof e === 'object' && typeof own(e, 'message') === 'string' ? own(e, 'message') : 'not serializable';
    return finish(seq, 'invalid', slice(why, limits.maxErrorMessageChars));
  }
  // Measured here, before the copy out: a 400 MB string must never reach the host.
  if (out.length > limits.maxResultBytes) return finish(seq, 'too-large', '');
  finish(seq, 'ok', out);
}

async function invoke(seq, context) {
  let value;
  try {
    if (typeof handler !== 'function') throw new TypeErrorC('plugin does not export a handler function');
    // As the reference decides: one declared parameter gets the context, any other count (api, params).
    value = handler.length === 1 ? await handler(context) : await handler(api, context.params);
  } catch (e) {
    settle(seq, false, e);
    return;
  }
  settle(seq, true, value);
}

let emitLogs = false;

/**
 * Entry: starts call \`seq\`. Returns nothing; the outcome leaves in the 'done' message, or with \`hold\` (a
 * synchronous entry) is kept for \`collect\` if the call ended within this entry.
 */
function run(seq, inputJson, configJson, emit, seed, hold) {
  holding = hold === true;
  sentWhileHolding = false;
  held = undefined;
  reseed(seed);
  current = seq;
  finished = false;
  pending = { __proto__: null };
  logText = ''; logCount = 0; logBytes = 0; dropped = 0; lastProblem = '';
  resetTimers();
  memoryRefused = false;
  emitLogs = emit === true;
  let context;
  try {
    const input = parse(inputJson);
    context = {
      params: input.params, api, kv, headers: input.headers, route: input.route, method: input.method,
      query: input.query, config: parse(configJson), requestId: input.requestId,
    };
  } catch (e) {
    settle(seq, false, e);
    return;
  }
  invoke(seq, context);
}

/** Entry, right after a holding \`run\`: the held 'done' as [kind, text, logs, reserved], its text alone for an 'ok' with no logs and nothing reserved, or undefined. */
function collect() {
  holding = false;
  const done = held;
  held = undefined;
  return done;
}

return ObjectFreeze({ __proto__: null, init, run, deliver, collect });
`;
