// A real Redis for tests: REDIS_URL, or the local one (127.0.0.1:6379). Skipped when none answers, except in CI.
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

let reachable: Promise<boolean> | undefined;

export function redisReachable(): Promise<boolean> {
  reachable ??= (async () => {
    const client = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: 2_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch (err) {
      if (process.env.CI)
        throw new Error(`Redis is required in CI but ${REDIS_URL} does not answer: ${(err as Error).message}`);
      return false;
    } finally {
      client.disconnect();
    }
  })();
  return reachable;
}
