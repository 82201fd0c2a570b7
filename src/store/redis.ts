// The Redis connection (REDIS_URL) shared by every instance: rate-limit counters. Commands fail fast while it is
// down (no offline queue), so the rate limiter falls back to its in-memory insurance instead of waiting.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisHandle {
  client: Redis;
  /** True when Redis answers PING; never rejects. */
  answers(): Promise<boolean>;
  close(): Promise<void>;
}

export function openRedis(url: string, logger: Logger): RedisHandle {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Keep trying every second at most, forever: Redis coming back must be picked up without a restart.
    retryStrategy: (times) => Math.min(times * 200, 1_000),
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: err.message }, 'Redis unavailable: rate limits fall back to this instance alone until it is back');
  });
  client.on('ready', () => {
    if (down) logger.info('Redis available again: rate limits are shared again');
    down = false;
  });
  return {
    client,
    answers: () => (client.status === 'ready' ? client.ping().then((r) => r === 'PONG', () => false) : Promise.resolve(false)),
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
