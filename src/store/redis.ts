// The Redis connection (REDIS_URL) shared by every instance: rate-limit counters. Commands fail fast while it is
// down (no offline queue), so the rate limiter falls back to its in-memory insurance instead of waiting.
import { Redis, type RedisOptions as IoRedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisOptions } from '../config/config.ts';

export interface RedisHandle {
  client: Redis;
  /** True when Redis answers PING; never rejects. */
  answers(): Promise<boolean>;
  close(): Promise<void>;
}

/** The connection's TLS and naming options from the config (SSL_CERT_FILE, REDIS_KEY_PREFIX, REDIS_CONNECTION_TIMEOUT_MS). */
function connectionOptions(url: string, options: RedisOptions): IoRedisOptions {
  const out: IoRedisOptions = { connectTimeout: options.connectTimeoutMs ?? 2_000 };
  // Every key this client names (rate-limit buckets, plugin KV, script KEYS) is prefixed: instances sharing one Redis stay apart.
  if (options.keyPrefix) out.keyPrefix = options.keyPrefix;
  // rediss:// (TLS): SSL_CERT_FILE's certificates are the trusted CAs, as OpenSSL reads that variable; unset, Node's CAs.
  if (/^rediss:\/\//i.test(url)) out.tls = options.ca ? { ca: options.ca } : {};
  return out;
}

export function openRedis(url: string, logger: Logger, options: RedisOptions = {}): RedisHandle {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // Commands issued in one event-loop turn (the rate limit of every request read in that turn) leave in one write.
    enableAutoPipelining: true,
    ...connectionOptions(url, options),
    // Keep trying every second at most, forever: Redis coming back must be picked up without a restart.
    retryStrategy: (times) => Math.min(times * 200, 1_000),
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { err: err.message },
      'Redis unavailable: rate limits fall back to this instance alone until it is back',
    );
  });
  client.on('ready', () => {
    if (down) logger.info('Redis available again: rate limits are shared again');
    down = false;
  });
  return {
    client,
    answers: () =>
      client.status === 'ready'
        ? client.ping().then(
            (r) => r === 'PONG',
            () => false,
          )
        : Promise.resolve(false),
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
