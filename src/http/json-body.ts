// JSON body parsing that keeps big integers exact and refuses anything that is not JSON.
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const INTEGER_LITERAL = /^-?\d+$/;

/**
 * JSON.parse rounds integers above 2^53 (1 ETH is 10^18 wei). Node 24's reviver sees each
 * number's source text, so such integers are kept as their exact decimal string; the schemas
 * accept amounts both as numbers and as digit strings.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && INTEGER_LITERAL.test(context.source)) {
      return context.source;
    }
    return value;
  });
}

const raw = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });

/** Reads the body (1 MiB cap), requires a JSON content type when there is one, and parses it. */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const buf = req.body as Buffer | undefined;
      if (!Buffer.isBuffer(buf) || buf.length === 0) {
        req.body = undefined;
        return next();
      }
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
        return next(new AppError('UNSUPPORTED_MEDIA_TYPE', { reason: `Content-Type must be application/json, got '${type || 'none'}'` }));
      }
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
      let decoded: string;
      try {
        decoded = text.decode(buf);
      } catch {
        return next(new AppError('INVALID_JSON', { reason: 'request body is not valid UTF-8' }));
      }
      try {
        req.body = parseJson(decoded);
      } catch (e) {
        return next(new AppError('INVALID_JSON', { reason: `malformed JSON body: ${(e as Error).message}` }));
      }
      next();
    });
  };
}
