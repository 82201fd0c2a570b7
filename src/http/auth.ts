// Bearer-token check against the configured API key, in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AuthError } from '../errors.ts';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

export function requireApiKey(apiKey: string): RequestHandler {
  // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
  const expected = createHash('sha256').update(apiKey).digest();
  return (req, _res, next) => {
    // Node keeps only the first of repeated Authorization headers; two credentials are ambiguous, so refused.
    let count = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'authorization') count++;
    if (count > 1) return next(new AuthError('more than one Authorization header'));
    const header = req.headers.authorization;
    if (!header) return next(new AuthError('missing Authorization header'));
    const match = BEARER.exec(header);
    if (!match) return next(new AuthError("Authorization header must be 'Bearer <token>'"));
    const given = createHash('sha256').update(match[1]!).digest();
    if (!timingSafeEqual(given, expected)) return next(new AuthError('invalid API key'));
    next();
  };
}
