// The front door: the bootstrap API key (API_KEY, compared in constant time) or a stored API key with its permissions.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError, AuthError } from '../errors.ts';
import { allows, needOf } from '../domain/api-keys/permissions.ts';
import type { ApiKeyRow } from '../domain/api-keys/ports.ts';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** Looks a presented secret up among the keys created through /api/v1/api-keys. */
export type StoredKeyLookup = (secret: string) => Promise<ApiKeyRow | undefined>;

/** The bearer token, or an AuthError saying what is wrong with the header. */
function tokenOf(rawHeaders: string[], header: string | undefined): string | AuthError {
  // Node keeps only the first of repeated Authorization headers; two credentials are ambiguous, so refused.
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  if (count > 1) return new AuthError('more than one Authorization header');
  if (!header) return new AuthError('missing Authorization header');
  const match = BEARER.exec(header);
  if (!match) return new AuthError("Authorization header must be 'Bearer <token>'");
  return match[1]!;
}

/**
 * `apiKey` (API_KEY) may do everything. A stored key may do what its permissions allow on the route's area
 * (see domain/api-keys/permissions.ts); `mountPath` is where this middleware is mounted (`/api/v1`).
 */
export function requireApiKey(apiKey: string, stored?: StoredKeyLookup): RequestHandler {
  // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
  const expected = createHash('sha256').update(apiKey).digest();
  return (req, _res, next) => {
    const token = tokenOf(req.rawHeaders, req.headers.authorization);
    if (token instanceof AuthError) return next(token);
    const given = createHash('sha256').update(token).digest();
    if (timingSafeEqual(given, expected)) return next();
    if (!stored) return next(new AuthError('invalid API key'));
    stored(token).then(
      (key) => {
        if (!key) return next(new AuthError('invalid API key'));
        const need = needOf(req.method, req.path);
        if (!need || !allows(key.permissions, need)) {
          const what = need ? `${need.action} on ${need.area}${need.id ? ` '${need.id}'` : 's'}` : `${req.method} ${req.path}`;
          return next(new AppError('FORBIDDEN', { reason: `API key '${key.name}' has no permission to ${what}` }));
        }
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
