// JSON body parsing that keeps big integers exact and refuses anything that is not JSON.
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { parseExactJson } from '../validation/exact-json.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a body may have; plugin params included. */
export const MAX_JSON_DEPTH = 128;

/**
 * The reviver recurses once per level, so 10,000 nested arrays overflow the stack; the schemas
 * recurse too. Measured on the text, before parsing: strings are skipped, escapes honoured.
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
      if (max > MAX_JSON_DEPTH) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The body's value, big integers exact (src/validation/exact-json.ts), nesting bounded. */
export function parseJson(text: string): unknown {
  // Nesting past the cap needs more brackets than a shorter text holds.
  if (text.length > MAX_JSON_DEPTH && nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new AppError('INVALID_JSON', { reason: `Invalid JSON: the body nests deeper than ${MAX_JSON_DEPTH} levels` });
  }
  return parseExactJson(text);
}

const raw = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });
// Non-streaming decode() keeps no state between calls, so one fatal decoder serves every request.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads the body (1 MiB cap), requires a JSON content type, and parses it. `untypedIsJson` names the
 * requests whose body may come without any Content-Type and is then read as JSON (the reference's
 * plugin call reads its body as JSON whatever the headers say); a wrong type is still refused.
 */
export function jsonBody(options: { untypedIsJson?: (req: Request) => boolean } = {}): RequestHandler {
  return (req, res, next) => {
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const buf = req.body as Buffer | undefined;
      if (!Buffer.isBuffer(buf) || buf.length === 0) {
        req.body = undefined;
        return next();
      }
      const type = req.headers['content-type'] ?? '';
      const untyped = type === '' && options.untypedIsJson?.(req) === true;
      if (!untyped && !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
        return next(
          new AppError('UNSUPPORTED_MEDIA_TYPE', {
            reason: `Content-Type must be application/json, got '${type || 'none'}'`,
          }),
        );
      }
      let decoded: string;
      try {
        decoded = utf8.decode(buf);
      } catch {
        return next(new AppError('INVALID_JSON', { reason: 'Invalid JSON: the request body is not valid UTF-8' }));
      }
      try {
        req.body = parseJson(decoded);
      } catch (e) {
        if (e instanceof AppError) return next(e);
        // The reference's text (`Invalid JSON: <parser message>`), which its clients and tests look for.
        return next(new AppError('INVALID_JSON', { reason: `Invalid JSON: ${(e as Error).message}` }));
      }
      next();
    });
  };
}
