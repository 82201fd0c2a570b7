// Host-side reading of what an isolate reported. Nothing from inside is trusted by shape: every value arrives as a
// primitive the host copied, is type- and size-checked here, and anything malformed becomes a runtime verdict.
// Codes that describe the runtime's own verdicts can never be claimed by a plugin.
import { RUNTIME_CODES, RUNTIME_ERRORS, runtimeError, type RuntimeVerdict } from '../common/errors.ts';
import type { ErrorData, LogEntry, RuntimeLimits, TraceEntry } from '../protocol.ts';

const LOG_LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);
/** A plugin's own error code: what a client can branch on, nothing that could carry markup or a newline. */
const PLUGIN_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The runtime's verdicts (runtime/common/errors.ts): only the runtime says a call timed out, ran out of memory, or the like. */
const RESERVED_CODES: ReadonlySet<string> = new Set([...RUNTIME_CODES, 'NOT_READY']);

/** A call's answer with one of the runtime's verdicts. */
export function failure(
  verdict: RuntimeVerdict,
  vars?: Record<string, string | number>,
  details?: Record<string, unknown>,
): { ok: false; error: ErrorData } {
  return { ok: false, error: runtimeError(verdict, vars, details) };
}

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function truncate(message: string, max: number): string {
  return message.length > max ? message.slice(0, max) + '… [truncated]' : message;
}

/** A result: JSON text of at most `maxResultBytes` bytes, one JSON value (it is spliced into our envelope). */
export function readResult(
  text: unknown,
  limits: RuntimeLimits,
): { ok: true; result: string } | { ok: false; error: ErrorData } {
  if (typeof text !== 'string') return failure('notText');
  if (text.length > limits.maxResultBytes || byteLength(text) > limits.maxResultBytes) return tooLarge(limits);
  try {
    JSON.parse(text);
  } catch {
    return failure('notJson');
  }
  return { ok: true, result: text };
}

export function tooLarge(limits: RuntimeLimits): { ok: false; error: ErrorData } {
  return failure('tooLarge', { limit: limits.maxResultBytes }, { limit: limits.maxResultBytes });
}

/**
 * A plugin's error: `{ code, message, status, details }` as JSON text made by the prelude, re-checked field by field.
 * `granted`: reserved codes the runtime or host really gave this call (API_CALL_LIMIT when an api/kv call was refused,
 * TIMEOUT when a transactionWait timed out): those may stand when the plugin lets them through.
 */
export function readPluginError(text: unknown, limits: RuntimeLimits, granted: ReadonlySet<string>): ErrorData {
  const cap = limits.maxErrorMessageChars * 6 + limits.maxErrorDetailsBytes + 1024;
  let parsed: unknown;
  try {
    parsed = typeof text === 'string' && text.length <= cap ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isPlainObject(parsed)) return runtimeError('pluginFailed');
  const { code, message, status, details } = parsed;
  let safeCode = typeof code === 'string' && PLUGIN_CODE.test(code) ? code : 'PLUGIN_ERROR';
  if (RESERVED_CODES.has(safeCode) && !granted.has(safeCode)) safeCode = 'PLUGIN_ERROR';
  let safeDetails: Record<string, unknown> = {};
  if (isPlainObject(details) && byteLength(JSON.stringify(details)) <= limits.maxErrorDetailsBytes)
    safeDetails = details;
  return {
    code: safeCode,
    message:
      typeof message === 'string' && message.trim()
        ? truncate(message, limits.maxErrorMessageChars)
        : RUNTIME_ERRORS.pluginFailed.text,
    status:
      Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599 ? (status as number) : 500,
    details: safeDetails,
  };
}

/** Logs: at most `maxLogLines` (+1 for the "dropped" line) entries of known levels and bounded messages. */
export function readLogs(text: unknown, limits: RuntimeLimits): LogEntry[] | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  // JSON escaping can make a line up to 6x longer than the characters the prelude counted.
  if (text.length > limits.maxLogBytes * 6 + limits.maxLogLines * 64 + 4096) {
    return [
      { level: 'warn', message: `[relaybox] logs dropped: the call's log output exceeded ${limits.maxLogBytes} bytes` },
    ];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) return [{ level: 'warn', message: '[relaybox] logs dropped: malformed' }];
  const out: LogEntry[] = [];
  let bytes = 0;
  for (const e of parsed.slice(0, limits.maxLogLines + 1)) {
    const level = isPlainObject(e) && typeof e.level === 'string' && LOG_LEVELS.has(e.level) ? e.level : 'log';
    const message =
      isPlainObject(e) && typeof e.message === 'string' ? truncate(e.message, limits.maxLogLineBytes) : '';
    bytes += message.length;
    if (bytes > limits.maxLogBytes + limits.maxLogLineBytes) break;
    out.push({ level, message });
  }
  return out;
}

/** Keeps a call's traces bounded: per entry and per call, payloads past the budget become a marker. */
export function createTraceBook(limits: RuntimeLimits, requestId: string) {
  const entries: TraceEntry[] = [];
  let bytes = 0;
  return {
    entries,
    /** `oversize`: the payload's size when it is known to be too large (it was not even parsed). */
    add(method: string, relayerId: unknown, payloadJson: string | undefined, oversize?: number): void {
      const size = oversize ?? (payloadJson === undefined ? 4 : byteLength(payloadJson));
      let payload: unknown = null;
      if (
        oversize === undefined &&
        payloadJson !== undefined &&
        size <= limits.maxTraceEntryBytes &&
        bytes + size <= limits.maxTraceBytes
      ) {
        payload = JSON.parse(payloadJson);
        bytes += size;
      } else if (oversize !== undefined || payloadJson !== undefined) {
        payload = { truncated: true, bytes: size };
      }
      entries.push({
        method,
        relayerId: typeof relayerId === 'string' ? relayerId.slice(0, 128) : String(relayerId ?? '').slice(0, 128),
        requestId,
        payload,
      });
    },
  };
}
