// Per-API-key rate limit: a steady rate with a burst allowance; 429 with Retry-After beyond it.
import type { RequestHandler } from 'express';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitError } from '../errors.ts';

export function rateLimit(options: { rps: number; burst: number }): RequestHandler {
  const limiter = new BurstyRateLimiter(
    new RateLimiterMemory({ points: options.rps, duration: 1 }),
    new RateLimiterMemory({ keyPrefix: 'burst', points: Math.max(options.burst - options.rps, 0) || 1, duration: Math.max(1, Math.ceil(options.burst / options.rps)) }),
  );
  return (_req, _res, next) => {
    // One API key, so one bucket; keyed anyway so more keys slot in without a change here.
    limiter.consume('api-key').then(
      () => next(),
      (res: unknown) => {
        if (res instanceof RateLimiterRes) next(new RateLimitError(Math.max(1, Math.ceil(res.msBeforeNext / 1000))));
        else next(res);
      },
    );
  };
}
