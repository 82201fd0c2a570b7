// Per-API-key rate limit: a steady rate with a burst allowance; 429 with Retry-After beyond it. Each stored key has
// its own bucket (its own limit when its record sets one), the bootstrap API_KEY another. With Redis the buckets are
// shared by every instance (RateLimiterRedis); while Redis is down an in-memory limiter stands in.
import type { RequestHandler } from 'express';
import { createHash } from 'node:crypto';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { RateLimitError } from '../errors.ts';
import { principalOf } from './auth.ts';

type Bucket = { keyPrefix: string; points: number; duration: number };
type Limit = { rps: number; burst: number };

function limiter(bucket: Bucket, redis: Redis | undefined): RateLimiterAbstract {
  const memory = new RateLimiterMemory(bucket);
  if (!redis) return memory;
  // Prefixed per purpose so that other data in the same Redis is never touched.
  return new RateLimiterRedis({
    ...bucket,
    keyPrefix: `relaybox:rl:${bucket.keyPrefix}`,
    storeClient: redis,
    insuranceLimiter: memory,
  });
}

/** A steady bucket and a burst bucket for one limit. The prefix names the limit: a changed limit starts afresh. */
function burstyFor({ rps, burst }: Limit, redis: Redis | undefined): BurstyRateLimiter {
  const name = `${rps}-${burst}`;
  const steady: Bucket = { keyPrefix: `steady:${name}`, points: rps, duration: 1 };
  const extra: Bucket = {
    keyPrefix: `burst:${name}`,
    points: Math.max(burst - rps, 0) || 1,
    duration: Math.max(1, Math.ceil(burst / rps)),
  };
  return new BurstyRateLimiter(limiter(steady, redis), limiter(extra, redis));
}

/**
 * Mounted after requireApiKey. `apiKey` (API_KEY) names the admin bucket by a digest: instances with the same key
 * share it, and neither it nor any stored key's secret reaches Redis (a stored key's bucket is its id).
 */
export function rateLimit(options: Limit & { apiKey: string }, redis?: Redis): RequestHandler {
  const adminBucket = `admin:${createHash('sha256').update(options.apiKey).digest('hex').slice(0, 16)}`;
  // One limiter per distinct limit: the default, and each per-key override in use (a handful).
  const limiters = new Map<string, BurstyRateLimiter>();
  const limiterOf = (rps: number, burst: number) => {
    const name = `${rps}-${burst}`;
    let found = limiters.get(name);
    if (!found) limiters.set(name, (found = burstyFor({ rps, burst }, redis)));
    return found;
  };
  // The default limit's, found once (on first use, as the others): the admin and keys without a limit of their own.
  let defaults: BurstyRateLimiter | undefined;
  return (_req, res, next) => {
    const who = principalOf(res);
    const limiter =
      who.kind === 'key' && who.rate_limit
        ? limiterOf(who.rate_limit.requests_per_second, who.rate_limit.burst_size)
        : (defaults ??= limiterOf(options.rps, options.burst));
    limiter.consume(who.kind === 'admin' ? adminBucket : `key:${who.id}`).then(
      () => next(),
      (rejection: unknown) => {
        if (rejection instanceof RateLimiterRes)
          next(new RateLimitError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
        else next(rejection);
      },
    );
  };
}
