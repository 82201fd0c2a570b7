// The front door: the bootstrap API key (API_KEY, compared in constant time) or a stored API key with its permissions.
// It names the caller (res.locals.principal) for the checks routes make on what a body names (a signer) and for
// list filtering; the model itself is domain/api-keys/permissions.ts (docs/security.md, "Authorization").
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { AppError, AuthError } from '../errors.ts';
import { boundedMemo } from './bounded-memo.ts';
import { describeNeed, needOf, type Area, type Need } from '../domain/api-keys/permissions.ts';
import type { ApiKeyRow } from '../domain/api-keys/ports.ts';
import {
  ADMIN,
  principalAllows,
  principalName,
  principalOfKey,
  principalReadable,
  type Principal,
} from '../domain/api-keys/principal.ts';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** Looks a presented secret up among the keys created through /api/v1/api-keys. */
export type StoredKeyLookup = (secret: string) => Promise<ApiKeyRow | undefined>;

// The length first: most header names are not it, and lower-casing them each time was a copy per header.
const isAuthorization = (name: string) => name.length === 13 && name.toLowerCase() === 'authorization';

/** The bearer token, or an AuthError saying what is wrong with the header. */
function tokenOf(rawHeaders: string[], header: string | undefined): string | AuthError {
  // Node keeps only the first of repeated Authorization headers; two credentials are ambiguous, so refused.
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (isAuthorization(rawHeaders[i]!)) count++;
  if (count > 1) return new AuthError('more than one Authorization header');
  if (!header) return new AuthError('missing Authorization header');
  const match = BEARER.exec(header);
  if (!match) return new AuthError("Authorization header must be 'Bearer <token>'");
  return match[1]!;
}

/** The caller the front door let in. */
export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  // A route reached without the front door is a wiring mistake, not a caller to trust.
  if (!p) throw new Error('no principal: requireApiKey is not mounted in front of this route');
  return p;
}

/**
 * Whether the credential that opened this request still lets it in. A long-lived answer (the events stream) asks
 * again from time to time, so a key deleted meanwhile stops receiving (the bootstrap API_KEY changes only on restart).
 */
export function credentialStillValid(res: Response): Promise<boolean> {
  const recheck = res.locals.recheckCredential as (() => Promise<boolean>) | undefined;
  return recheck ? recheck() : Promise.resolve(true);
}

/** Throws 403 (FORBIDDEN) unless the caller may do `need`. */
export function authorize(res: Response, need: Need): void {
  const p = principalOf(res);
  if (!principalAllows(p, need))
    throw new AppError('FORBIDDEN', { reason: `${principalName(p)} has no permission to ${describeNeed(need)}` });
}

/** Using a signer (naming it for a relayer, or having it sign outside a transaction) is a right of its own. */
export const authorizeSignerUse = (res: Response, signerId: string): void =>
  authorize(res, { area: 'signer', id: signerId, action: 'execute' });

/** The ids of `area` a list route may answer with: 'all', or the ids the key may read. */
export function listScope(res: Response, area: Area): 'all' | string[] {
  const scope = principalReadable(principalOf(res), area);
  return scope === 'none' ? [] : scope;
}

/**
 * `apiKey` (API_KEY) may do everything. A stored key may do what its permissions allow on the route's need
 * (domain/api-keys/permissions.ts needOf: read from the method and the path under where this is mounted).
 */
export function requireApiKey(apiKey: string, stored?: StoredKeyLookup): RequestHandler {
  // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
  const expected = createHash('sha256').update(apiKey).digest();
  // A client presents the same key on every request: hashing it each time was a measurable share of a request's CPU.
  const digestOf = boundedMemo((token) => createHash('sha256').update(token).digest());
  return (req, res, next) => {
    const token = tokenOf(req.rawHeaders, req.headers.authorization);
    if (token instanceof AuthError) return next(token);
    const given = digestOf(token);
    if (timingSafeEqual(given, expected)) {
      res.locals.principal = ADMIN;
      return next();
    }
    if (!stored) return next(new AuthError('invalid API key'));
    stored(token).then(
      (key) => {
        if (!key) return next(new AuthError('invalid API key'));
        const principal = principalOfKey(key);
        const need = needOf(req.method, req.path);
        if (!need || !principalAllows(principal, need)) {
          const what = need ? describeNeed(need) : `${req.method} ${req.path}`;
          return next(
            new AppError('FORBIDDEN', { reason: `${principalName(principal)} has no permission to ${what}` }),
          );
        }
        res.locals.principal = principal;
        res.locals.recheckCredential = async () => (await stored(token))?.id === key.id;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
