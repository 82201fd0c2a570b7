// The one envelope builder: every response body the service sends is shaped here.
import type { AppError, PluginError } from '../errors.ts';

export interface Pagination {
  current_page: number;
  per_page: number;
  total_items: number;
}

export interface LogEntry {
  level: string;
  message: string;
}

export interface Metadata {
  logs?: ReadonlyArray<LogEntry>;
  traces?: ReadonlyArray<unknown>;
}

/** Success: `{ success: true, data, error: null }`, plus `pagination` / `metadata` when given. */
export function success(data: unknown, extra: { pagination?: Pagination; metadata?: Metadata } = {}) {
  return { success: true, data, error: null, ...extra };
}

/**
 * Failure of a record operation (transactions, relayers, notifications): `error` is the precise
 * reason, `message` the spec's text.
 */
export function recordFailure(err: AppError) {
  return { success: false, data: null, error: err.reason, message: err.message };
}

// Plugin-route failures whose precise reason is the text: a plugin route has no `message` field to carry it,
// and the reference's text for a refused method is the reason itself.
const REASON_IN_ERROR = new Set(['VALIDATION_FAILED', 'INSUFFICIENT_BALANCE', 'INVALID_JSON', 'METHOD_NOT_ALLOWED']);

/**
 * 401, on every route: the reference's body (`code`, `error` and `message` all say Unauthorized) with the
 * envelope's `data: null`. The precise reason goes in `WWW-Authenticate` (RFC 6750), see unauthorizedHeader.
 */
export function unauthorizedFailure() {
  return { success: false, code: 401, data: null, error: 'Unauthorized', message: 'Unauthorized' };
}

/** `Bearer error="invalid_token", error_description="<reason>"`; the reason is ours (no client text), quotes escaped anyway. */
export function unauthorizedHeader(reason: string): string {
  return `Bearer error="invalid_token", error_description="${reason.replace(/["\\]/g, "'")}"`;
}

/** Failure of a plugin operation: the text is in `error` (the precise reason for the codes above). */
export function pluginRouteFailure(err: AppError) {
  return { success: false, data: null, error: REASON_IN_ERROR.has(err.code) ? err.reason : err.message };
}

/** A plugin's own failure: `data` holds `{ code, details }`, `error` the derived message. */
export function pluginFailure(err: PluginError) {
  const metadata: Metadata = {};
  if (err.logs) metadata.logs = err.logs;
  if (err.traces) metadata.traces = err.traces;
  return {
    success: false,
    data: { code: err.code, details: err.details },
    error: err.message,
    ...(err.logs || err.traces ? { metadata } : {}),
  };
}
