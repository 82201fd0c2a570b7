// The check of what the runtime process answers: whatever it sent, a call settles with a well-formed result or one of
// the service's errors, re-checked field by field on this side of the process boundary.
import type { PluginCallResult } from '../domain/plugins/ports.ts';
import { AppError, PluginError } from '../errors.ts';
import { RUNTIME_ERRORS, runtimeError } from '../../runtime/common/errors.ts';
import type { ChildMessage, ErrorData, LogEntry, TraceEntry } from '../../runtime/protocol.ts';
import { RUNTIME_LIMITS } from './limits.ts';

const RETRY_AFTER_SECONDS = 1;

/** 503 RUNTIME_UNAVAILABLE with Retry-After: the runtime is restarting or the service is shutting down. */
export function unavailable(reason: string): AppError {
  return new AppError('RUNTIME_UNAVAILABLE', { reason, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The runtime's verdict as the client sees it. Re-checked here, field by field, whatever the runtime process sent:
 * an error status outside 400–599 becomes 500, a Retry-After is an integer of seconds or nothing.
 */
function toPluginFailure(pluginId: string, error: ErrorData, logs?: LogEntry[], traces?: TraceEntry[]): Error {
  const retryAfter =
    Number.isInteger(error.retryAfter) && error.retryAfter! >= 1 && error.retryAfter! <= 3600
      ? String(error.retryAfter)
      : undefined;
  // The runtime's route-level verdicts answer as the service's own errors (src/errors.ts), the rest as plugin errors.
  switch (error.code) {
    case RUNTIME_ERRORS.notFound.code:
      return new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
    case RUNTIME_ERRORS.getNotAllowed.code:
      return new AppError('METHOD_NOT_ALLOWED', { reason: String(error.message).slice(0, 500) });
    case RUNTIME_ERRORS.pluginBusy.code:
      return new AppError('PLUGIN_BUSY', {
        params: { id: pluginId },
        reason: String(error.message).slice(0, 500),
        headers: { 'Retry-After': retryAfter ?? String(RETRY_AFTER_SECONDS) },
      });
    case RUNTIME_ERRORS.runtimeBusy.code:
    case RUNTIME_ERRORS.sandboxReset.code:
      return new AppError('RUNTIME_UNAVAILABLE', {
        reason: String(error.message).slice(0, 500),
        headers: { 'Retry-After': retryAfter ?? String(RETRY_AFTER_SECONDS) },
      });
  }
  return new PluginError({
    code:
      typeof error.code === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(error.code)
        ? error.code
        : RUNTIME_ERRORS.pluginFailed.code,
    message:
      typeof error.message === 'string'
        ? error.message.slice(0, RUNTIME_LIMITS.maxErrorMessageChars + 16)
        : RUNTIME_ERRORS.pluginFailed.text,
    status: Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 500,
    details: isPlainObject(error.details) ? error.details : {},
    logs: Array.isArray(logs) ? logs : undefined,
    traces: Array.isArray(traces) ? traces : undefined,
    headers: retryAfter ? { 'Retry-After': retryAfter } : undefined,
  });
}

/** A call's answer from the runtime, checked once more on this side of the process boundary. */
export function outcomeOf(pluginId: string, msg: Extract<ChildMessage, { t: 'result' }>): PluginCallResult | Error {
  const logs = Array.isArray(msg.logs) ? msg.logs : undefined;
  const traces = Array.isArray(msg.traces) ? msg.traces : undefined;
  if (!msg.ok)
    return toPluginFailure(
      pluginId,
      isPlainObject(msg.error) ? msg.error : runtimeError('malformedAnswer'),
      logs,
      traces,
    );
  if (typeof msg.result !== 'string' || msg.result.length > RUNTIME_LIMITS.maxResultBytes) {
    return new PluginError(runtimeError('tooLarge', { limit: RUNTIME_LIMITS.maxResultBytes }));
  }
  const metadata = logs || traces ? { ...(logs ? { logs } : {}), ...(traces ? { traces } : {}) } : undefined;
  return { result: msg.result, raw: msg.raw === true, metadata };
}
