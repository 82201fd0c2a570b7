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

/**
 * Failure of a plugin operation: the text is in `error`. Validation failures keep their precise
 * reason there, since a plugin route has no `message` field to carry it.
 */
export function pluginRouteFailure(err: AppError) {
  return { success: false, data: null, error: err.code === 'VALIDATION_FAILED' || err.code === 'INVALID_JSON' ? err.reason : err.message };
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
