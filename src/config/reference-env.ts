// The OpenZeppelin Relayer's environment variables, read with its meaning where we have the same knob; every other
// one it reads that we cannot honour becomes a notice, logged once at start with what we do instead.
import path from 'node:path';
import { CA_BUNDLE_MAX_BYTES, readRegularFile } from './read-file.ts';
import { readEnv, type EnvValues, type LogFormat } from './env.ts';

export type { LogFormat } from './env.ts';

/** One start-up log line: a reference variable we read differently or cannot honour, and what we do instead. */
export interface ReferenceNotice {
  variable: string;
  level: 'info' | 'warn';
  message: string;
}

/** Unset: `compact`, the reference's default (a person reads it); a log shipper sets `json`, as the tests and bench do. */
export const DEFAULT_LOG_FORMAT: LogFormat = 'compact';

/** LOG_MODE=file: rotating files `<dir>/relayer.<date>.<n>.log` (pino-roll), in LOG_FORMAT. */
export type LogOutput = { mode: 'stdout' } | { mode: 'file'; dir: string; maxBytes: number };

/** The RPC pool's knobs the reference's RPC_TIMEOUT_MS and PROVIDER_* set (absent: our defaults). */
export interface RpcEnvSettings {
  timeoutMs?: number;
  retryCount?: number;
  retryDelayMs?: number;
  cooldownMs?: number;
}

/** Options of the Redis connection: the CA bundle of a rediss:// URL (SSL_CERT_FILE), a key prefix, a connect timeout. */
export interface RedisOptions {
  /** PEM text of SSL_CERT_FILE, trusted instead of Node's CAs (OpenSSL's meaning of the variable). */
  ca?: string;
  caFile?: string;
  keyPrefix?: string;
  connectTimeoutMs?: number;
}

export interface ReferenceSettings {
  /** APP_PORT. */
  port: number | undefined;
  /** RATE_LIMIT_REQUESTS_PER_SECOND, RATE_LIMIT_BURST_SIZE. */
  rps: number | undefined;
  burst: number | undefined;
  /** METRICS_ENABLED decides when set (true: METRICS_PORT or 8081; false: none); unset: METRICS_PORT alone, as ours. */
  metricsEnabled: boolean | undefined;
  logOutput: LogOutput;
  logFormat: LogFormat;
  redis: RedisOptions;
  rpc: RpcEnvSettings;
  /** `REPOSITORY_STORAGE_TYPE=redis` or `DISTRIBUTED_MODE=true`: the variable that says several instances share state. */
  sharedState: string | undefined;
  notices: ReferenceNotice[];
}

/** Where the reference runs: the working directory its relative paths (LOG_DATA_DIR, SSL_CERT_FILE) mean. */
export interface ReferenceContext {
  /** The folder holding its `config/` folder, when the config is laid out that way; else the process's working directory. */
  root: string;
  /** The config file was found the reference's way (CONFIG_DIR, IN_DOCKER) or in a `config/` folder. */
  referenceLayout: boolean;
}

const set = (env: NodeJS.ProcessEnv, name: string) => env[name] !== undefined && env[name] !== '';

/** An unsigned integer (the reference's u64/u16 fields); refused in one sentence when not one. */
function uint(env: NodeJS.ProcessEnv, name: string, min = 0): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return Number(raw);
}

/** The reference's booleans: `true` in any case (DISTRIBUTED_MODE also takes `1`); anything else is false. */
function bool(env: NodeJS.ProcessEnv, name: string, alsoOne = false): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return raw.toLowerCase() === 'true' || (alsoOne && raw === '1');
}

function logOutput(e: EnvValues, ctx: ReferenceContext): LogOutput {
  const mode = e.LOG_MODE;
  if (mode === 'stdout') return { mode };
  // As the reference: IN_DOCKER=true writes to logs/ under the working directory, whatever LOG_DATA_DIR says.
  const dir = e.IN_DOCKER ? 'logs' : e.LOG_DATA_DIR;
  return { mode, dir: path.resolve(ctx.root, dir), maxBytes: e.LOG_MAX_SIZE };
}

function redisOptions(env: NodeJS.ProcessEnv, ctx: ReferenceContext, notices: ReferenceNotice[]): RedisOptions {
  const e = readEnv(env);
  const options: RedisOptions = {};
  const tls = /^rediss:\/\//i.test(e.REDIS_URL ?? '');
  const caFile = e.SSL_CERT_FILE;
  if (caFile !== undefined && tls) {
    options.caFile = path.resolve(ctx.root, caFile);
    options.ca = readRegularFile(options.caFile, CA_BUNDLE_MAX_BYTES, 'SSL_CERT_FILE: CA bundle');
    if (!options.ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new Error(`SSL_CERT_FILE: ${options.caFile} holds no PEM certificate`);
  } else if (caFile !== undefined) {
    notices.push({
      variable: 'SSL_CERT_FILE',
      level: 'info',
      message:
        "SSL_CERT_FILE is used only for a rediss:// REDIS_URL; other TLS connections (RPC nodes, webhooks) trust Node's CAs and NODE_EXTRA_CA_CERTS",
    });
  }
  if (e.REDIS_KEY_PREFIX !== undefined) options.keyPrefix = `${e.REDIS_KEY_PREFIX}:`;
  const timeout = e.REDIS_CONNECTION_TIMEOUT_MS;
  if (timeout !== undefined) options.connectTimeoutMs = timeout;
  if (set(env, 'REDIS_READER_URL'))
    notices.push({
      variable: 'REDIS_READER_URL',
      level: 'warn',
      message: 'REDIS_READER_URL is not used: reads and writes both go to REDIS_URL',
    });
  for (const name of [
    'REDIS_POOL_MAX_SIZE',
    'REDIS_READER_POOL_MAX_SIZE',
    'REDIS_POOL_TIMEOUT_MS',
    'REDIS_CONNECTION_MAX_AGE_MS',
  ]) {
    if (set(env, name))
      notices.push({
        variable: name,
        level: 'info',
        message: `${name} is not used: each instance keeps one Redis connection and reconnects on its own`,
      });
  }
  return options;
}

function rpcSettings(env: NodeJS.ProcessEnv, notices: ReferenceNotice[]): RpcEnvSettings {
  const e = readEnv(env);
  const rpc: RpcEnvSettings = {};
  const timeout = e.RPC_TIMEOUT_MS;
  if (timeout !== undefined) rpc.timeoutMs = timeout;
  const delay = e.PROVIDER_RETRY_BASE_DELAY_MS;
  if (delay !== undefined) rpc.retryDelayMs = delay;
  const retries = e.PROVIDER_MAX_RETRIES;
  if (retries !== undefined) {
    rpc.retryCount = retries;
    notices.push({
      variable: 'PROVIDER_MAX_RETRIES',
      level: 'info',
      message: `PROVIDER_MAX_RETRIES=${retries} is read as whole rounds over every RPC URL of the network after the first (the reference retries each URL, then fails over)`,
    });
  }
  // RPC_PAUSE_DURATION_SECS: the reference's older name, read when ours is unset.
  const pauseName = set(env, 'PROVIDER_PAUSE_DURATION_SECS')
    ? 'PROVIDER_PAUSE_DURATION_SECS'
    : 'RPC_PAUSE_DURATION_SECS';
  const pause = pauseName === 'PROVIDER_PAUSE_DURATION_SECS' ? e.PROVIDER_PAUSE_DURATION_SECS : uint(env, pauseName, 1);
  if (pause !== undefined) {
    rpc.cooldownMs = pause * 1000;
    notices.push({
      variable: pauseName,
      level: 'info',
      message: `${pauseName}=${pause} is read as the first pause of a failed RPC URL, after one failure, doubling per consecutive failure up to 30 times`,
    });
  }
  const unused: Record<string, string> = {
    PROVIDER_RETRY_MAX_DELAY_MS: 'retry delays double from PROVIDER_RETRY_BASE_DELAY_MS without a cap',
    PROVIDER_MAX_FAILOVERS: 'every RPC URL of the network is tried in each round',
    PROVIDER_FAILURE_THRESHOLD: 'a URL is paused after one failure',
    RPC_FAILURE_THRESHOLD: 'a URL is paused after one failure',
    PROVIDER_FAILURE_EXPIRATION_SECS:
      'a URL is tried again when its pause ends, and its failures reset when it answers',
  };
  for (const [name, instead] of Object.entries(unused))
    if (set(env, name)) notices.push({ variable: name, level: 'info', message: `${name} is not used: ${instead}` });
  return rpc;
}

/** REPOSITORY_STORAGE_TYPE, DISTRIBUTED_MODE, RESET_STORAGE_ON_START, QUEUE_BACKEND, TRANSACTION_EXPIRATION_HOURS. */
function storage(env: NodeJS.ProcessEnv, notices: ReferenceNotice[]): string | undefined {
  const type = env.REPOSITORY_STORAGE_TYPE?.toLowerCase();
  if (type && !['redis', 'in_memory', 'inmemory'].includes(type))
    throw new Error(`REPOSITORY_STORAGE_TYPE must be 'in_memory' or 'redis', got '${env.REPOSITORY_STORAGE_TYPE}'`);
  if (bool(env, 'RESET_STORAGE_ON_START')) {
    notices.push({
      variable: 'RESET_STORAGE_ON_START',
      level: 'warn',
      message:
        'RESET_STORAGE_ON_START=true is not honoured: the store is never wiped at start (nonces and transactions are kept); the config file seeds it and each difference is logged as config drift. To start empty, use an empty DATA_DIR or a new database',
    });
  }
  const queue = env.QUEUE_BACKEND?.toLowerCase();
  if (queue && !['redis', 'sqs', 'pubsub', 'rabbitmq'].includes(queue))
    throw new Error(`QUEUE_BACKEND must be redis, sqs, pubsub or rabbitmq, got '${env.QUEUE_BACKEND}'`);
  if (queue)
    notices.push({
      variable: 'QUEUE_BACKEND',
      level: 'info',
      message: `QUEUE_BACKEND=${queue}: no queue broker is used; jobs live in the store, so ${queue === 'redis' ? 'Redis' : queue} needs no set-up for Relaybox`,
    });
  if (set(env, 'TRANSACTION_EXPIRATION_HOURS')) {
    notices.push({
      variable: 'TRANSACTION_EXPIRATION_HOURS',
      level: 'info',
      message:
        'TRANSACTION_EXPIRATION_HOURS is not used: transactions in a final state are kept, not deleted after that many hours (in the reference it sets no valid_until either: an EVM transaction sent without one expires 8 hours after its creation, in both)',
    });
  }
  if (type === 'redis') return 'REPOSITORY_STORAGE_TYPE=redis';
  if (bool(env, 'DISTRIBUTED_MODE', true)) return 'DISTRIBUTED_MODE=true';
  if (type)
    notices.push({
      variable: 'REPOSITORY_STORAGE_TYPE',
      level: 'warn',
      message: `REPOSITORY_STORAGE_TYPE=${env.REPOSITORY_STORAGE_TYPE}: state is kept in a SQLite file in DATA_DIR and survives restarts (the reference's in-memory state does not)`,
    });
  return undefined;
}

/** Server settings the reference reads and we have no knob for. */
function serverNotices(env: NodeJS.ProcessEnv, ctx: ReferenceContext, notices: ReferenceNotice[]): void {
  const unused: Record<string, string> = {
    ENABLE_SWAGGER: 'the interactive docs are always served at /docs',
    MAX_CONNECTIONS: 'connections are not capped by the service (put a reverse proxy in front to cap them)',
    CONNECTION_BACKLOG: "Node's default listen backlog (511) applies",
    REQUEST_TIMEOUT_SECONDS:
      'requests are bounded by their own deadlines (RPC, plugin timeouts), and SHUTDOWN_GRACE_MS on stop',
    RELAYER_CONCURRENCY_LIMIT: 'the relayer routes are bounded by the per-key rate limit',
    RUST_LOG: 'LOG_LEVEL sets the level',
  };
  for (const [name, instead] of Object.entries(unused))
    if (set(env, name)) notices.push({ variable: name, level: 'info', message: `${name} is not used: ${instead}` });
  const pairs: Array<[string, string]> = [
    ['PORT', 'APP_PORT'],
    ['RATE_LIMIT_RPS', 'RATE_LIMIT_REQUESTS_PER_SECOND'],
    ['RATE_LIMIT_BURST', 'RATE_LIMIT_BURST_SIZE'],
  ];
  for (const [ours, theirs] of pairs) {
    if (set(env, ours) && set(env, theirs) && env[ours] !== env[theirs])
      notices.push({
        variable: theirs,
        level: 'warn',
        message: `${theirs}=${env[theirs]} is not used: ${ours}=${env[ours]} is set and wins`,
      });
  }
  if (ctx.referenceLayout && !set(env, 'HOST')) {
    notices.push({
      variable: 'HOST',
      level: 'info',
      message:
        'HOST is not set: listening on 127.0.0.1 only (the reference listens on 0.0.0.0); set HOST=0.0.0.0 to be reached from other hosts or containers',
    });
  }
  if (ctx.referenceLayout && env.METRICS_ENABLED === undefined && set(env, 'METRICS_PORT')) {
    notices.push({
      variable: 'METRICS_PORT',
      level: 'info',
      message:
        'METRICS_PORT is set without METRICS_ENABLED: metrics are served on it (the reference also needs METRICS_ENABLED=true)',
    });
  }
}

/** The reference's variables in `env`, with what they set here and a notice for each one read differently or unused. */
export function readReferenceEnv(env: NodeJS.ProcessEnv, ctx: ReferenceContext): ReferenceSettings {
  const e = readEnv(env);
  const notices: ReferenceNotice[] = [];
  serverNotices(env, ctx, notices);
  return {
    port: uint(env, 'APP_PORT'),
    rps: uint(env, 'RATE_LIMIT_REQUESTS_PER_SECOND', 1),
    burst: uint(env, 'RATE_LIMIT_BURST_SIZE', 1),
    metricsEnabled: e.METRICS_ENABLED,
    logOutput: logOutput(e, ctx),
    logFormat: e.LOG_FORMAT,
    redis: redisOptions(env, ctx, notices),
    rpc: rpcSettings(env, notices),
    sharedState: storage(env, notices),
    notices,
  };
}
