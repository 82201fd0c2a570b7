// Room: runtime/common (see README.md here). The runtime's own verdicts on a plugin call, one row each: its code, HTTP
// status and text (`{name}` filled in per call). The worker (outcome.ts, call-run.ts, worker.ts), the runtime main thread
// (server.ts, pool.ts, the registry) and the HTTP process's check of what arrives (src/plugin-host/answer-check.ts,
// crash-recovery.ts) all answer from it; docs/plugins.md ("The runtime's verdicts") lists every row, checked both ways
// by test/plugins/runtime-errors.test.ts. A plugin can never claim one of these codes (outcome.ts).
import type { ErrorData } from '../protocol.ts';

interface Verdict {
  code: string;
  status: number;
  text: string;
  /** Seconds: the condition passes, the client may retry. */
  retryAfter?: number;
}

export const RUNTIME_ERRORS = {
  timeout: { code: 'TIMEOUT', status: 504, text: 'Plugin execution timed out after {timeout} s' },
  timeoutQueued: {
    code: 'TIMEOUT',
    status: 504,
    text: 'Plugin execution timed out after {timeout} s, waiting for a free slot (the plugin has {running} call(s) running)',
  },
  memory: { code: 'MEMORY_LIMIT_EXCEEDED', status: 500, text: 'Plugin exceeded its memory limit of {memory_mb} MB' },
  memoryCrash: { code: 'MEMORY_LIMIT_EXCEEDED', status: 500, text: 'Plugin exceeded its memory limit' },
  memoryLoading: { code: 'MEMORY_LIMIT_EXCEEDED', status: 500, text: 'Plugin exceeded its memory limit while loading' },
  tooLarge: { code: 'RESULT_TOO_LARGE', status: 500, text: 'Plugin result exceeds {limit} bytes' },
  notText: { code: 'INVALID_RESULT', status: 500, text: 'Plugin result is not JSON text' },
  notJson: { code: 'INVALID_RESULT', status: 500, text: 'Plugin result is not valid JSON' },
  notSerializable: { code: 'INVALID_RESULT', status: 500, text: 'Plugin result is not JSON-serializable: {reason}' },
  apiCalls: { code: 'API_CALL_LIMIT', status: 429, text: 'a plugin call may make at most {limit} api/kv calls' },
  apiArgBytes: {
    code: 'API_CALL_LIMIT',
    status: 429,
    text: 'a plugin call may send at most {limit} bytes of api/kv arguments',
  },
  cryptoOps: {
    code: 'API_CALL_LIMIT',
    status: 429,
    text: 'a plugin call may make at most {limit} crypto.subtle operations',
  },
  callEnded: { code: 'CALL_ENDED', status: 409, text: 'the plugin call this request belongs to has already finished' },
  compileError: { code: 'COMPILE_ERROR', status: 500, text: '{reason}' },
  loadError: { code: 'LOAD_ERROR', status: 500, text: 'Plugin failed to load: {reason}' },
  loadTimeout: { code: 'LOAD_ERROR', status: 500, text: 'Plugin top-level code did not finish within {timeout_ms} ms' },
  uninspectable: { code: 'LOAD_ERROR', status: 500, text: 'plugin could not be inspected: {reason}' },
  invalidSettings: { code: 'INVALID_SETTINGS', status: 500, text: '{reason}' },
  quarantined: { code: 'PLUGIN_QUARANTINED', status: 503, text: '{reason}' },
  notFound: { code: 'PLUGIN_NOT_FOUND', status: 404, text: 'Plugin with ID {id} not found' },
  getNotAllowed: {
    code: 'METHOD_NOT_ALLOWED',
    status: 405,
    text: "GET requests are not enabled for this plugin. Set 'allow_get_invocation: true' in plugin configuration to enable.",
  },
  pluginBusy: {
    code: 'PLUGIN_BUSY',
    status: 429,
    text: 'plugin {id} has {running} call(s) running and {queued} waiting, its limit; retry shortly',
    retryAfter: 1,
  },
  runtimeBusy: {
    code: 'RUNTIME_BUSY',
    status: 503,
    text: 'plugin runtime queue is full; retry shortly',
    retryAfter: 1,
  },
  sandboxReset: {
    code: 'RUNTIME_UNAVAILABLE',
    status: 503,
    text: 'the plugin sandbox was reset while this call was running; retry',
    retryAfter: 1,
  },
  workerFailed: { code: 'RUNTIME_UNAVAILABLE', status: 503, text: 'plugin worker failed: {reason}', retryAfter: 1 },
  pluginFailed: { code: 'PLUGIN_ERROR', status: 500, text: 'Plugin execution failed' },
  sandboxError: { code: 'INTERNAL', status: 500, text: 'Plugin runtime error: {reason}' },
  unknownOutcome: { code: 'INTERNAL', status: 500, text: 'the plugin sandbox reported an unknown outcome' },
  runtimeError: { code: 'INTERNAL', status: 500, text: 'runtime error: {reason}' },
  malformedAnswer: { code: 'INTERNAL', status: 500, text: 'malformed runtime answer' },
} as const satisfies Record<string, Verdict>;

export type RuntimeVerdict = keyof typeof RUNTIME_ERRORS;

/** The verdict's ErrorData: its text with `vars` filled in, its status, its Retry-After, and `details` (none: `{}`). */
export function runtimeError(
  verdict: RuntimeVerdict,
  vars: Record<string, string | number> = {},
  details: Record<string, unknown> = {},
): ErrorData {
  const row: Verdict = RUNTIME_ERRORS[verdict];
  const message = row.text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? ''));
  return {
    code: row.code,
    message,
    status: row.status,
    details,
    ...(row.retryAfter === undefined ? {} : { retryAfter: row.retryAfter }),
  };
}

/** Every code the runtime gives: what a plugin may not claim as its own. */
export const RUNTIME_CODES: ReadonlySet<string> = new Set(Object.values(RUNTIME_ERRORS).map((row) => row.code));
