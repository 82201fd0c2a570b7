// GET /metrics on the API port (behind the API key), and the optional unauthenticated listener on METRICS_PORT.
import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics.ts';

export function metricsHandler(metrics: Metrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.render();
    res.setHeader('Content-Type', metrics.contentType);
    res.send(body);
  };
}

/**
 * A second, tiny listener that answers only `GET /metrics`, without authentication: bind it where
 * only the scraper reaches (METRICS_HOST, default HOST).
 */
export function listenMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found: only GET /metrics is served here\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
