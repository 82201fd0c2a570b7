// Per-API-key rate limit: a steady rate with a burst allowance; 429 with Retry-After beyond it. With Redis the
// buckets are shared by every instance (RateLimiterRedis); while Redis is down an in-memory limiter stands in.
import type { RequestHandler } from 'express';
import { createHash } from 'node:crypto';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { RateLimitError } from '../errors.ts';

type Bucket = { keyPrefix: string; points: number; duration: number };

function limiter(bucket: Bucket, redis: Redis | undefined): RateLimiterAbstract {
  const memory = new RateLimiterMemory(bucket);
  if (!redis) return memory;
  // Prefixed per purpose so that other data in the same Redis is never touched.
  return new RateLimiterRedis({ ...bucket, keyPrefix: `relaybox:rl:${bucket.keyPrefix}`, storeClient: redis, insuranceLimiter: memory });
}

export function rateLimit(options: { rps: number; burst: number; apiKey: string }, redis?: Redis): RequestHandler {
  // The bucket is named by a digest of the key: instances with the same API_KEY share it, the key never reaches Redis.
  const bucketKey = createHash('sha256').update(options.apiKey).digest('hex').slice(0, 16);
  const steady: Bucket = { keyPrefix: 'steady', points: options.rps, duration: 1 };
  const burst: Bucket = { keyPrefix: 'burst', points: Math.max(options.burst - options.rps, 0) || 1, duration: Math.max(1, Math.ceil(options.burst / options.rps)) };
  const bursty = new BurstyRateLimiter(limiter(steady, redis), limiter(burst, redis));
  return (_req, _res, next) => {
    // One API key, so one bucket; keyed anyway so more keys slot in without a change here.
    bursty.consume(bucketKey).then(
      () => next(),
      (res: unknown) => {
        if (res instanceof RateLimiterRes) next(new RateLimitError(Math.max(1, Math.ceil(res.msBeforeNext / 1000))));
        else next(res);
      },
    );
  };
}
