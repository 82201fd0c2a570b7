// The operational routes (health, readiness, this reference, metrics) for the API reference.
import type { RouteDoc } from './route-doc.ts';

const components = { type: 'object', additionalProperties: { enum: ['up', 'down'] } } as const;

export const serviceApiRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness: the process answers HTTP',
    description: 'Cheap on purpose: it checks nothing else. Use /api/v1/ready for traffic decisions.',
    data: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    examples: { data: { status: 'ok' } },
  },
  {
    method: 'get',
    path: '/ready',
    summary: 'Readiness: the store answers and the plugin runtime is up',
    description: 'Answers 503 `Service Unavailable` naming the components that are down.',
    data: { type: 'object', required: ['status', 'components'], properties: { status: { const: 'ready' }, components } },
    errors: ['NOT_READY'],
    examples: { data: { status: 'ready', components: { store: 'up', runtime: 'up' } } },
  },
  { method: 'get', path: '/openapi.json', summary: 'This API reference, OpenAPI 3.1', produces: 'application/json' },
];

export const serviceRootRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Behind the API key here; with METRICS_PORT set, also served without authentication on that port.',
    produces: 'text/plain',
    auth: true,
  },
  { method: 'get', path: '/docs', summary: 'The interactive API reference (HTML)', produces: 'text/html' },
];
