// The metrics routes: Prometheus text at /metrics (behind the API key) and /debug/metrics/scrape, the reference's
// JSON list of names and one metric by name, and the optional unauthenticated listener on METRICS_PORT.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Router, type RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import type { Metrics } from '../observability/metrics.ts';

/**
 * The reference's client asks `GET /metrics` for a JSON list of names (it sends `Accept: application/json,
 * text/plain, *\/*`); scrapers ask for text (they never name JSON). JSON only when the Accept header names
 * `application/json` itself and ranks it above text: curl's `*\/*` and every scraper keep the text.
 */
export function prefersJson(accept: string | undefined): boolean {
  const entries = (accept ?? '').split(',').map((part, index) => {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { type: type.trim(), q: q ? Number(q.slice(2)) : 1, index };
  });
  const json = entries.find((e) => e.type === 'application/json' && e.q > 0);
  if (!json) return false;
  const text = entries.filter(
    (e) => e.type === 'text/plain' || e.type === 'text/*' || e.type.startsWith('application/openmetrics-text'),
  );
  return text.every((t) => json.q > t.q || (json.q === t.q && json.index < t.index));
}

type Answer = { status: number; type: string; body: string };

/** `names`: when `/metrics` answers the JSON list of names: always (the reference's API scope) or when the client prefers JSON. */
type NamesMode = 'always' | 'when-asked';

async function answer(
  metrics: Metrics,
  path: string,
  accept: string | undefined,
  names: NamesMode,
): Promise<Answer | null> {
  const text = (body: string): Answer => ({ status: 200, type: metrics.contentType, body });
  if (path === '/metrics')
    return names === 'always' || prefersJson(accept)
      ? { status: 200, type: 'application/json', body: JSON.stringify(metrics.names()) }
      : text(await metrics.render());
  if (path === '/debug/metrics/scrape') return text(await metrics.render());
  const one = /^\/metrics\/([A-Za-z_:][A-Za-z0-9_:]*)$/.exec(path);
  if (!one) return null;
  const body = await metrics.renderOne(one[1]!);
  return body === null ? { status: 404, type: 'text/plain; charset=utf-8', body: 'Metric not found' } : text(body);
}

/**
 * Where to mount the metrics router: the paths its routes can match (any case, before a trailing slash, as Express
 * matches). Zero-width, so the router still sees the whole path; any other request passes it at one regex test
 * instead of walking its routes (and leaving it through a setImmediate).
 */
export const METRICS_PATHS = /^(?=\/(?:metrics|debug\/metrics\/scrape)(?:\/|$))/i;

/** `/metrics`, `/metrics/{metric_name}` and `/debug/metrics/scrape`, each behind `guard` (the API key). */
export function createMetricsRouter(metrics: Metrics, guard: RequestHandler, names: NamesMode): Router {
  const router = Router();
  const serve: RequestHandler = async (req, res) => {
    const out = await answer(metrics, req.path, req.headers.accept, names);
    if (!out) throw new AppError('ROUTE_NOT_FOUND', { reason: `no route for ${req.method} ${req.path}` });
    if (out.status === 404) throw new AppError('NOT_FOUND', { reason: `no metric named '${req.params.metric_name}'` });
    res.status(out.status).setHeader('Content-Type', out.type);
    res.send(out.body);
  };
  for (const path of ['/metrics', '/metrics/:metric_name', '/debug/metrics/scrape']) router.get(path, guard, serve);
  return router;
}

function serveRaw(metrics: Metrics, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return;
  }
  answer(metrics, path, req.headers.accept, 'when-asked').then(
    (out) => {
      if (!out)
        res
          .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('not found: GET /metrics, /metrics/{metric_name} and /debug/metrics/scrape are served here\n');
      else res.writeHead(out.status, { 'Content-Type': out.type }).end(req.method === 'HEAD' ? undefined : out.body);
    },
    () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n'),
  );
}

/**
 * A second, tiny listener that answers only the metrics routes, without authentication: bind it where
 * only the scraper reaches (METRICS_HOST, default HOST).
 */
export function listenMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => serveRaw(metrics, req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
