// Counts and times every HTTP request by route pattern (never the raw URL, which would explode label cardinality).
import type { RequestHandler } from 'express';
import type { MetricsRecorder } from '../observability/metrics.ts';
import { boundedMemo } from './bounded-memo.ts';

export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Maps a request path to one of the documented route templates (`/api/v1/relayers/{relayer_id}`).
 * Matching on the templates rather than `req.route` also labels requests refused before routing
 * (401, 429), and does not depend on Express restoring `req.baseUrl` on the error path.
 */
export function createRouteMatcher(templates: readonly string[]): (path: string) => string {
  const compiled = [...new Set(templates)]
    .map((template) => {
      const segments = template.split('/');
      const source = segments
        .map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('/');
      // Literal segments beat parameters when two templates match the same path.
      const params = segments.filter((s) => s.startsWith('{')).length;
      return { template, params, regexp: new RegExp(`^${source}$`) };
    })
    .sort((a, b) => a.params - b.params);
  const match = (path: string) => {
    // Express routes ignore one trailing slash (non-strict routing); so does the label.
    const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
    return compiled.find((c) => c.regexp.test(trimmed))?.template ?? UNMATCHED_ROUTE;
  };
  // Clients repeat their paths (the same plugin, relayer, transaction): a label is found among ~100 templates once.
  return boundedMemo(match);
}

export function requestMetrics(metrics: MetricsRecorder, routeOf: (path: string) => string): RequestHandler {
  return (req, res, next) => {
    // performance.now(): as precise, without a BigInt made at each end.
    const start = performance.now();
    // Read now: routers rewrite req.url while a request is inside them.
    const route = routeOf(req.path);
    metrics.httpInFlight?.(route, 1);
    // One listener for both: 'close' comes for every request, after 'finish' when it was answered, and also for a
    // request whose client went away unanswered (not counted as answered).
    res.once('close', () => {
      metrics.httpInFlight?.(route, -1);
      if (res.writableFinished)
        metrics.httpRequest(route, req.method, res.statusCode, (performance.now() - start) / 1e3);
    });
    next();
  };
}
