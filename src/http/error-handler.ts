// The one error normalizer: anything thrown becomes an AppError (or PluginError) and one envelope.
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, PluginError } from '../errors.ts';
import {
  pluginFailure,
  pluginRouteFailure,
  recordFailure,
  unauthorizedFailure,
  unauthorizedHeader,
} from './envelope.ts';

/** Maps anything thrown to an AppError; unknown errors become a generic 500. */
function normalize(err: unknown): AppError | PluginError {
  if (err instanceof AppError || err instanceof PluginError) return err;
  const e = err as { type?: string; status?: number; message?: string } | undefined;
  // body-parser (express.raw) reports its failures with a `type`.
  if (e?.type === 'entity.too.large')
    return new AppError('PAYLOAD_TOO_LARGE', { reason: 'request body exceeds 1 MiB', cause: err });
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', { reason: e.message ?? 'unsupported body encoding', cause: err });
  }
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid' || e?.type === 'entity.verify.failed') {
    return new AppError('BAD_REQUEST', { reason: e.message ?? 'malformed request body', cause: err });
  }
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('BAD_REQUEST', { reason: e.message ?? 'bad request', cause: err });
  }
  return new AppError('INTERNAL', { cause: err });
}

function isPluginRoute(req: Request): boolean {
  return /^\/api\/v1\/plugins(\/|$)/.test(req.path);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    const err = normalize(thrown);
    const reqId = res.locals.requestId as string | undefined;
    // A signer that did not sign is said in one line (its reason names the signer and the cause), never a stack trace.
    if (err.code === 'SIGNER_UNAVAILABLE')
      logger.warn({ reqId, code: err.code, reason: (err as AppError).reason }, 'the signer did not sign');
    else if (err.status >= 500 && !(err instanceof PluginError))
      logger.error({ reqId, err: (err as AppError).cause ?? err }, err.message);
    else logger.debug({ reqId, code: err.code }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    if (err instanceof PluginError) {
      res.status(err.status).json(pluginFailure(err));
      return;
    }
    if (err.code === 'UNAUTHORIZED') {
      res.status(401).setHeader('WWW-Authenticate', unauthorizedHeader(err.reason)).json(unauthorizedFailure());
      return;
    }
    res.status(err.status).json(isPluginRoute(req) ? pluginRouteFailure(err) : recordFailure(err));
  };
}

/** Unknown routes answer 404 in the envelope. */
export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(new AppError('ROUTE_NOT_FOUND', { reason: `no route for ${req.method} ${req.path}` }));
};

/** A known path asked with a method it does not serve: 405 in the envelope. */
export const methodNotAllowed: RequestHandler = (req, _res, next) => {
  next(new AppError('METHOD_NOT_ALLOWED', { reason: `${req.method} is not supported on ${req.baseUrl}${req.path}` }));
};
