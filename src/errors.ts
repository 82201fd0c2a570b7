// The one error hierarchy: every failure the service reports is an AppError with a stable code.

/**
 * The code catalogue: each code with its HTTP status and the exact text the spec asks for.
 * Codes are never reused; every one is documented in docs/errors.md (a test checks it).
 */
export const ERROR_CATALOGUE = {
  BAD_REQUEST: { status: 400, message: 'Bad Request' },
  VALIDATION_FAILED: { status: 400, message: 'Bad Request' },
  INVALID_JSON: { status: 400, message: 'Bad Request' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Media Type' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload Too Large' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  NOT_SUPPORTED: { status: 400, message: 'Bad Request' },
  INSUFFICIENT_BALANCE: { status: 400, message: 'Bad Request' },
  RELAYER_PAUSED: { status: 403, message: 'Relayer paused' },
  RELAYER_DISABLED: { status: 403, message: 'Relayer disabled' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Not found' },
  RELAYER_NOT_FOUND: { status: 404, message: 'Relayer with ID {id} not found' },
  NOTIFICATION_NOT_FOUND: { status: 404, message: 'Not found' },
  PLUGIN_NOT_FOUND: { status: 404, message: 'Plugin with ID {id} not found' },
  SIGNER_NOT_FOUND: { status: 404, message: 'Signer not found' },
  NETWORK_NOT_FOUND: { status: 404, message: "Network with ID '{id}' not found" },
  API_KEY_NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method Not Allowed' },
  NOTIFICATION_EXISTS: { status: 409, message: 'Notification with this ID already exists' },
  RELAYER_EXISTS: { status: 409, message: 'Relayer with this ID already exists' },
  SIGNER_EXISTS: { status: 409, message: 'Signer with this ID already exists' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'Idempotency key already used with a different request' },
  RATE_LIMITED: { status: 429, message: 'Too Many Requests' },
  PLUGIN_BUSY: { status: 429, message: 'Plugin {id} has too many calls in progress; retry shortly' },
  INTERNAL: { status: 500, message: 'Internal Server Error' },
  NOT_IMPLEMENTED: { status: 501, message: 'Not Implemented' },
  RUNTIME_UNAVAILABLE: { status: 503, message: 'Service Unavailable' },
  CHAIN_UNAVAILABLE: { status: 503, message: 'Service Unavailable' },
  NO_LANE_AVAILABLE: { status: 503, message: 'Service Unavailable' },
  SIGNER_UNAVAILABLE: { status: 502, message: 'Bad Gateway' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface AppErrorOptions {
  /** Precise reason shown in the envelope's `error` (which field, which rule). Defaults to the spec text. */
  reason?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Values substituted into the catalogue text, e.g. `{ id }` for `Relayer with ID {id} not found`. */
  params?: Record<string, string>;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

/** Base of every error the service reports on purpose. `message` is always the spec's text. */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly reason: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const entry = ERROR_CATALOGUE[code];
    const message = entry.message.replace(/\{(\w+)\}/g, (_, k: string) => options.params?.[k] ?? '');
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = entry.status;
    this.reason = options.reason ?? message;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export class ValidationError extends AppError {
  constructor(reason: string, details?: Record<string, unknown>) {
    super('VALIDATION_FAILED', { reason, details });
  }
}

export class NotFoundError extends AppError {}

/**
 * A send its relayer's balance cannot cover once what its unmined sends may still cost and its min_balance are kept
 * aside. `error` starts with the reference's text and says what is missing; `details` has the figures (wei, decimal,
 * for the log).
 */
export class InsufficientBalanceError extends AppError {
  constructor(reason: string, details: Record<string, string>) {
    super('INSUFFICIENT_BALANCE', { reason, details });
  }
}
export class ConflictError extends AppError {}
export class AuthError extends AppError {
  constructor(reason: string) {
    super('UNAUTHORIZED', { reason });
  }
}
export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('RATE_LIMITED', {
      reason: `rate limit exceeded; retry in ${retryAfterSeconds} s`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/**
 * A failure raised by (or on behalf of) a plugin call. Unlike other errors its code comes from
 * the plugin (`VALIDATION_FAILED`, `TIMEOUT`, ...), its status from the plugin's `status` or the
 * runtime's rules, and its envelope carries `data: { code, details }`.
 */
export class PluginError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly logs: ReadonlyArray<{ level: string; message: string }> | undefined;
  readonly traces: ReadonlyArray<unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(init: {
    code: string;
    message: string;
    status: number;
    details?: Record<string, unknown>;
    logs?: ReadonlyArray<{ level: string; message: string }>;
    traces?: ReadonlyArray<unknown>;
    headers?: Record<string, string>;
  }) {
    super(init.message);
    this.name = 'PluginError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.logs = init.logs;
    this.traces = init.traces;
    this.headers = init.headers;
  }
}
