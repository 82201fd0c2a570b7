// Configuration: environment plus the JSON config file, validated once at start-up, then frozen.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateConfig, type ConfigLocation } from './locate.ts';
import { readReferenceEnv, type ReferenceNotice } from './reference-env.ts';
import { loadConfigFile } from './file.ts';
import { resolveNotificationKeys, resolveSignerSecrets, storageKeys } from './secrets.ts';
import type { Config, PluginRuntimeConfig } from './types.ts';

export type { DevnetConfig, EvmNetworkConfig, NetworkConfig, NetworkType, RpcUrlConfig } from './networks.ts';
export type { ConfigLocation } from './locate.ts';
export type { SecretRef, SignerFileConfigs, SignerType } from './signer-schemas.ts';
export type { LogFormat, LogOutput, RedisOptions, ReferenceNotice, RpcEnvSettings } from './reference-env.ts';
export type { Config, ConfigFile, NotificationConfig, PluginConfig, PluginRuntimeConfig, RelayerConfig, SignerConfig, SignerConfigOf, WebhookSettings } from './types.ts';
export { loadConfigFile, type ConfigPlaces } from './file.ts';
export { resolveSecret } from './secrets.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_CONFIG_PATH = path.join(PROJECT_ROOT, 'config.example.json');

function pluginRuntime(env: NodeJS.ProcessEnv): PluginRuntimeConfig {
  const threads = intFromEnv(env, 'PLUGIN_THREADS', Math.max(1, Math.min(availableParallelism(), 4)));
  // Calls interleave while they await the host; isolate CPU is serialized per plugin, so slots are cheap, and
  // plenty of them keep idle calls (awaiting the host, or hanging) from starving other plugins.
  const concurrency = intFromEnv(env, 'PLUGIN_CONCURRENCY', 32);
  const maxQueue = intFromEnv(env, 'PLUGIN_MAX_QUEUE', 1024);
  return {
    contextMode: pluginContextMode(env),
    threads,
    concurrency,
    maxQueue,
    // A quarter of the pool's slots: four busy plugins cannot take every slot from a fifth.
    maxConcurrentCalls: intFromEnv(env, 'PLUGIN_MAX_CONCURRENT_CALLS', Math.max(1, Math.floor((threads * concurrency) / 4))),
    maxQueuedCalls: intFromEnv(env, 'PLUGIN_MAX_QUEUED_CALLS', Math.min(256, maxQueue), 0),
    kvMaxKeys: intFromEnv(env, 'PLUGIN_KV_MAX_KEYS', 10_000),
    kvMaxBytes: intFromEnv(env, 'PLUGIN_KV_MAX_BYTES', 64 * 1024 * 1024, 1024),
    quarantineCrashes: intFromEnv(env, 'PLUGIN_QUARANTINE_CRASHES', 3),
    quarantineWindowSec: intFromEnv(env, 'PLUGIN_QUARANTINE_WINDOW_SEC', 600),
    standby: booleanFromEnv(env, 'PLUGIN_RUNTIME_STANDBY', false),
    faultStallWorkerOn: env.PLUGIN_FAULT_STALL_WORKER || undefined,
  };
}

function pluginContextMode(env: NodeJS.ProcessEnv): 'warm' | 'fresh' {
  const raw = env.PLUGIN_CONTEXT_MODE || 'warm';
  if (raw !== 'warm' && raw !== 'fresh') throw new Error(`PLUGIN_CONTEXT_MODE must be 'warm' or 'fresh', got '${raw}'`);
  return raw;
}

/** SIGNER_TIMEOUT_MS's default: how long one signature (one call to a remote signer) may take. */
export const DEFAULT_SIGNER_TIMEOUT_MS = 10_000;

/** SIGNER_TIMEOUT_MS, read one way for the config and for each remote signer from the environment it is given. */
export function signerTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  return intFromEnv(env, 'SIGNER_TIMEOUT_MS', DEFAULT_SIGNER_TIMEOUT_MS);
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return n;
}

function booleanFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== '0' && raw !== '1' && raw !== 'true' && raw !== 'false') throw new Error(`${name} must be 0, 1, true or false, got '${raw}'`);
  return raw === '1' || raw === 'true';
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** DATA_DIR's and PLUGINS_DIR's defaults: beside the reference's config folder for its layout (its /app), else the working directory. */
function defaultDir(location: ConfigLocation, name: string): string {
  return location.referenceRoot ? path.join(location.referenceRoot, name) : path.resolve(name);
}

/** Several instances sharing state (the reference's Redis storage, its distributed mode): only PostgreSQL holds that here. */
function checkSharedState(reason: string | undefined, databaseUrl: string | undefined, dataDir: string, notices: ReferenceNotice[]): void {
  if (reason === undefined) return;
  const variable = reason.slice(0, reason.indexOf('='));
  if (databaseUrl === undefined) {
    throw new Error(`${reason} says several instances share state, which Relaybox keeps only in PostgreSQL: set DATABASE_URL (postgres://…), or remove ${variable} to keep this one instance's state in SQLite in ${dataDir}`);
  }
  notices.push({ variable, level: 'info', message: `${reason}: state is shared through PostgreSQL (DATABASE_URL), not Redis` });
}

/** METRICS_ENABLED, when set, decides as in the reference (true: METRICS_PORT, default 8081); unset: METRICS_PORT alone. */
function metricsPort(env: NodeJS.ProcessEnv, enabled: boolean | undefined): number | undefined {
  if (enabled === false) return undefined;
  if (enabled === true) return intFromEnv(env, 'METRICS_PORT', 8081, 0);
  return env.METRICS_PORT ? intFromEnv(env, 'METRICS_PORT', 0, 0) : undefined;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** LOG_LEVEL in any case, as the reference reads it. */
function logLevel(env: NodeJS.ProcessEnv): string {
  const level = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${env.LOG_LEVEL}'`);
  return level;
}

/** Builds the frozen Config from the environment (defaults as documented in the README). */
function httpUrlFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got '${value}'`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const location = locateConfig(env, { defaultFile: DEFAULT_CONFIG_PATH, cwd: process.cwd() });
  const configPath = location.file;
  const reference = readReferenceEnv(env, { root: location.referenceRoot ?? process.cwd(), referenceLayout: location.referenceRoot !== undefined });
  const dataDir = env.DATA_DIR ? path.resolve(env.DATA_DIR) : defaultDir(location, 'data');
  let apiKey = env.API_KEY ?? '';
  let apiKeyGenerated = false;
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database)');
  }
  // Several instances share one database: a key generated per process would differ on each of them.
  if (apiKey === '' && databaseUrl !== undefined) throw new Error('API_KEY is required when DATABASE_URL is set (every instance must use the same key)');
  if (apiKey === '') {
    apiKey = randomBytes(24).toString('base64url');
    apiKeyGenerated = true;
  } else if (apiKey.length < 32) {
    throw new Error('API_KEY must be at least 32 characters');
  }
  const { encryptionKey, previousKey } = storageKeys(env);
  checkSharedState(reference.sharedState, databaseUrl, dataDir, reference.notices);
  return deepFreeze({
    port: intFromEnv(env, 'PORT', reference.port ?? 8080, 0),
    host: env.HOST || '127.0.0.1',
    metricsPort: metricsPort(env, reference.metricsEnabled),
    metricsHost: env.METRICS_HOST || env.HOST || '127.0.0.1',
    apiKey,
    apiKeyGenerated,
    configPath,
    configLocation: location,
    dataDir,
    pluginsDir: env.PLUGINS_DIR ? path.resolve(env.PLUGINS_DIR) : defaultDir(location, 'plugins'),
    logLevel: logLevel(env),
    logOutput: reference.logOutput,
    logFormat: reference.logFormat,
    notices: reference.notices,
    // Below Kubernetes' default 30 s before SIGKILL (systemd waits 90 s).
    shutdownGraceMs: intFromEnv(env, 'SHUTDOWN_GRACE_MS', 25_000, 0),
    signerTimeoutMs: signerTimeoutFromEnv(env),
    rateLimit: { rps: intFromEnv(env, 'RATE_LIMIT_RPS', reference.rps ?? 100), burst: intFromEnv(env, 'RATE_LIMIT_BURST', reference.burst ?? 300) },
    storageEncryptionKey: encryptionKey,
    storageEncryptionKeyPrevious: previousKey,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    redis: reference.redis,
    rpc: reference.rpc,
    jupiterApiUrl: httpUrlFromEnv(env, 'JUPITER_API_URL', 'https://lite-api.jup.ag'),
    rpcUrls: {
      allowedHosts: (env.RPC_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter((h) => h !== ''),
      // On by default, unlike the reference (off): a key that may manage relayers must not reach internal services.
      blockPrivateIps: booleanFromEnv(env, 'RPC_BLOCK_PRIVATE_IPS', true),
    },
    pluginRuntime: pluginRuntime(env),
    webhooks: {
      timeoutMs: intFromEnv(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
      blockPrivateIps: booleanFromEnv(env, 'WEBHOOK_BLOCK_PRIVATE_IPS', false),
      backoffBaseMs: intFromEnv(env, 'WEBHOOK_BACKOFF_BASE_MS', 2_000),
      backoffMaxMs: intFromEnv(env, 'WEBHOOK_BACKOFF_MAX_MS', 60_000),
      maxAttempts: intFromEnv(env, 'WEBHOOK_MAX_ATTEMPTS', 8),
      concurrency: intFromEnv(env, 'WEBHOOK_CONCURRENCY', 16),
      pollIntervalMs: intFromEnv(env, 'WEBHOOK_POLL_INTERVAL_MS', 1_000),
    },
    file: resolveSignerSecrets(resolveNotificationKeys(loadConfigFile(configPath, location), env), env),
  });
}
