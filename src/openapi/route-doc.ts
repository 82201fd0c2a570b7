// What a router tells the API reference about each of its routes: the very schemas it validates with, and its answers.
import type { ErrorCode } from '../errors.ts';

export type DocMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON Schema object as the validators compile it (read-only `as const` objects included). */
export type Schema = object;

export interface RouteDoc {
  method: DocMethod;
  /** Express path relative to the router, as mounted: `/:relayer_id/transactions`. */
  path: string;
  summary: string;
  description?: string;
  /** Object schemas, the same objects the route compiles; each property becomes one parameter. */
  params?: Schema;
  query?: Schema;
  /** Request headers the route reads (an object schema, as `query`); each property becomes one header parameter. */
  headers?: Schema;
  body?: Schema;
  /** Default 200. */
  status?: number;
  /** Schema of the envelope's `data` on success (of the whole body with `produces: 'application/json'`). */
  data?: Schema;
  /** Lists carry `pagination`. */
  paginated?: boolean;
  /** Codes this route itself raises; the common ones (auth, validation, body parsing, 500) are added for it. */
  errors?: readonly ErrorCode[];
  examples?: { body?: unknown; data?: unknown };
  /** The route runs a plugin, whose own failures answer `{ code, details }` with the plugin's status. */
  pluginFailures?: boolean;
  /** Overrides the group's setting. */
  auth?: boolean;
  /** An answer that is not the JSON envelope (the metrics text, the docs page, this document). */
  produces?: 'text/plain' | 'text/html' | 'application/json' | 'text/event-stream';
}

/** A group of routes as mounted under one prefix, with what the mount adds to all of them. */
export interface RouteGroup {
  /** Full mount path: `/api/v1/relayers`. */
  prefix: string;
  tag: string;
  routes: readonly RouteDoc[];
  /** Behind the API key (default true). */
  auth?: boolean;
  /** Plugin routes put the failure text in `error` and answer plugin failures as `{ code, details }`. */
  envelope?: 'record' | 'plugin';
}
