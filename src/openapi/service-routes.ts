// The operational routes (health, readiness, this reference, metrics) for the API reference.
import type { RouteDoc } from './route-doc.ts';

const status = { enum: ['healthy', 'degraded', 'unhealthy'] } as const;
const state = { type: 'object', required: ['status'], properties: { status, error: { type: 'string' } } } as const;
const pool = {
  type: 'object',
  required: ['connected', 'available', 'max_size'],
  properties: { connected: { type: 'boolean' }, available: { type: 'integer' }, max_size: { type: 'integer' } },
} as const;
/** The reference's ReadinessResponse; our own components (store, runtime) beside its four. */
const readiness = {
  type: 'object',
  required: ['ready', 'status', 'components', 'timestamp'],
  properties: {
    ready: { type: 'boolean' },
    status,
    reason: { type: 'string', description: 'the unhealthy components, `; `-separated' },
    timestamp: { type: 'string', format: 'date-time' },
    components: {
      type: 'object',
      required: ['system', 'redis', 'queue'],
      properties: {
        system: {
          type: 'object',
          required: ['status', 'fd_count', 'fd_limit', 'fd_usage_percent', 'close_wait_count'],
          properties: {
            status,
            fd_count: { type: 'integer' },
            fd_limit: { type: 'integer' },
            fd_usage_percent: { type: 'integer' },
            close_wait_count: { type: 'integer' },
            error: { type: 'string' },
          },
        },
        redis: {
          type: 'object',
          required: ['status', 'primary_pool', 'reader_pool'],
          properties: {
            status,
            primary_pool: pool,
            reader_pool: pool,
            enabled: { type: 'boolean' },
            error: { type: 'string' },
          },
        },
        queue: state,
        plugins: {
          type: 'object',
          required: ['status', 'enabled'],
          properties: { status, enabled: { type: 'boolean' }, error: { type: 'string' } },
        },
        store: state,
        runtime: state,
      },
    },
  },
} as const;
const metricParams = {
  type: 'object',
  required: ['metric_name'],
  properties: { metric_name: { type: 'string', pattern: '^[A-Za-z_:][A-Za-z0-9_:]*$' } },
} as const;
const metricNames = { type: 'array', items: { type: 'string' } } as const;

/** The reference's metrics routes, served under /api/v1 and at the root (and on METRICS_PORT). */
const metricRoutes = (namesAlways: boolean): RouteDoc[] => [
  {
    method: 'get',
    path: '/metrics',
    summary: namesAlways
      ? "Every metric's name (JSON)"
      : 'Prometheus metrics (text exposition format); the JSON list of names for a client that asks for JSON',
    description: namesAlways
      ? "The reference's list of metric names."
      : "Text unless the `Accept` header names `application/json` and ranks it above text (the reference's client does; scrapers and curl get the text). Behind the API key here; with METRICS_PORT set, also served without authentication on that port.",
    produces: namesAlways ? 'application/json' : 'text/plain',
    ...(namesAlways ? { data: metricNames } : {}),
    auth: true,
  },
  {
    method: 'get',
    path: '/metrics/:metric_name',
    summary: 'One metric, Prometheus text format',
    params: metricParams,
    produces: 'text/plain',
    errors: ['NOT_FOUND'],
    auth: true,
  },
  {
    method: 'get',
    path: '/debug/metrics/scrape',
    summary: "Every metric, Prometheus text format (the reference's scrape route)",
    produces: 'text/plain',
    auth: true,
  },
];

export const serviceApiRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness: the process answers HTTP',
    description:
      'Answers 200 with the text `OK`, as the reference does. Cheap on purpose: it checks nothing else. Use /api/v1/ready for traffic decisions.',
    produces: 'text/plain',
  },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness: the store answers and the plugin runtime is up',
    description:
      'The reference\'s readiness answer (no envelope): `system`, `redis`, `queue` (our store holds the job queue) and `plugins` (our runtime) as the reference names them, plus our own `store` and `runtime`. Not ready: 503 with the same body, `ready: false`, `status: "unhealthy"`, `reason` naming what is down, and `Retry-After: 5`.',
    produces: 'application/json',
    data: readiness,
  },
  { method: 'get', path: '/openapi.json', summary: 'This API reference, OpenAPI 3.1', produces: 'application/json' },
  ...metricRoutes(true),
];

export const serviceRootRouteDocs: RouteDoc[] = [
  ...metricRoutes(false),
  { method: 'get', path: '/docs', summary: 'The interactive API reference (HTML)', produces: 'text/html' },
];
