// JSON body parsing that keeps big integers exact and refuses anything that is not JSON.
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { noteNonIntegerNotation } from '../validation/compile.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects a body may have; plugin params included. */
export const MAX_JSON_DEPTH = 128;

const INTEGER_LITERAL = /^-?\d+$/;
/**
 * A number the reviver would change or note: 16+ digits (maybe past 2^53), a fraction or an exponent. A number token
 * follows `:`, `[`, `,` or opens the text; a match inside a string only sends the text the slow way, never wrongly
 * the fast way.
 */
const NEEDS_REVIVER = /(?:^|[:[,])\s*-?(?:\d{16}|\d+[.eE])/;

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

/**
 * JSON.parse rounds integers above 2^53 (1 ETH is 10^18 wei). Node 24's reviver sees each
 * number's source text, so such integers are kept as their exact decimal string; the schemas
 * accept amounts both as numbers and as digit strings. An integer written as `1e3` or `7.0` is
 * left a number (plugin params are any JSON) but noted, so integer fields can refuse it.
 */
export function parseJson(text: string): unknown {
  // Nesting past the cap needs more brackets than a shorter text holds.
  if (text.length > MAX_JSON_DEPTH && nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new AppError('INVALID_JSON', { reason: `Invalid JSON: the body nests deeper than ${MAX_JSON_DEPTH} levels` });
  }
  // Most bodies hold no such number: the native parse without a reviver gives the same value, several times faster.
  if (!NEEDS_REVIVER.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value !== 'number' || context?.source === undefined) return value;
    if (INTEGER_LITERAL.test(context.source)) return Number.isSafeInteger(value) ? value : context.source;
    if (Number.isInteger(value)) noteNonIntegerNotation(this, key);
    return value;
  });
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
        return next(new AppError('UNSUPPORTED_MEDIA_TYPE', { reason: `Content-Type must be application/json, got '${type || 'none'}'` }));
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
