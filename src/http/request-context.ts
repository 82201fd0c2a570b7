// Request id (X-Request-Id, echoed back) and one pino log line per request.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Query values worth logging; any other value may be something a client should not have put in a URL.
const LOGGED_QUERY_VALUES = new Set(['page', 'per_page', 'status']);

function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts: string[] = [];
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
    parts.push(
      `${encodeURIComponent(name)}=${LOGGED_QUERY_VALUES.has(name) ? encodeURIComponent(value) : '[redacted]'}`,
    );
  }
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const start = performance.now();
    // Below info (LOG_LEVEL=warn, as tuned deployments run) the line would be dropped: no listener to make it.
    if (logger.isLevelEnabled('info')) {
      res.on('finish', () => {
        const ms = performance.now() - start;
        // The Authorization header and the body are never part of what is logged.
        logger.info(
          {
            reqId: id,
            method: req.method,
            url: loggableUrl(req.originalUrl),
            status: res.statusCode,
            ms: Math.round(ms * 100) / 100,
          },
          'request',
        );
      });
    }
    next();
  };
}
