// Configuration: environment plus the JSON config file, validated once at start-up, then frozen.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateConfig, type ConfigLocation } from './locate.ts';
import { readReferenceEnv, type ReferenceNotice } from './reference-env.ts';
import { loadConfigFile } from './file.ts';
import { resolveNotificationKeys, resolveSignerSecrets, storageKeys } from './secrets.ts';
import type { Config, PluginRuntimeConfig, SignerSettings } from './types.ts';
import { readEnv, type EnvValues } from './env.ts';
import { processEnv } from './process-env.ts';

export type { DevnetConfig, EvmNetworkConfig, NetworkConfig, NetworkType, RpcUrlConfig } from './networks.ts';
export type { ConfigLocation } from './locate.ts';
export type { SecretRef, SignerFileConfigs, SignerType } from './signer-schemas.ts';
export type { LogFormat, LogOutput, RedisOptions, ReferenceNotice, RpcEnvSettings } from './reference-env.ts';
export type {
  Config,
  ConfigFile,
  NotificationConfig,
  PluginConfig,
  PluginRuntimeConfig,
  RelayerConfig,
  SignerConfig,
  SignerConfigOf,
  SignerSettings,
  WebhookSettings,
} from './types.ts';
export { loadConfigFile, type ConfigPlaces } from './file.ts';
export { resolveSecret } from './secrets.ts';
export { DEFAULT_SIGNER_TIMEOUT_MS } from './env.ts';
export { processEnv } from './process-env.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_CONFIG_PATH = path.join(PROJECT_ROOT, 'config.example.json');

function pluginRuntime(e: EnvValues): PluginRuntimeConfig {
  const threads = e.PLUGIN_THREADS;
  const concurrency = e.PLUGIN_CONCURRENCY;
  const maxQueue = e.PLUGIN_MAX_QUEUE;
  return {
    contextMode: e.PLUGIN_CONTEXT_MODE,
    threads,
    concurrency,
    maxQueue,
    // A quarter of the pool's slots: four busy plugins cannot take every slot from a fifth.
    maxConcurrentCalls: e.PLUGIN_MAX_CONCURRENT_CALLS ?? Math.max(1, Math.floor((threads * concurrency) / 4)),
    maxQueuedCalls: e.PLUGIN_MAX_QUEUED_CALLS ?? Math.min(256, maxQueue),
    kvMaxKeys: e.PLUGIN_KV_MAX_KEYS,
    kvMaxBytes: e.PLUGIN_KV_MAX_BYTES,
    quarantineCrashes: e.PLUGIN_QUARANTINE_CRASHES,
    quarantineWindowSec: e.PLUGIN_QUARANTINE_WINDOW_SEC,
    standby: e.PLUGIN_RUNTIME_STANDBY,
  };
}

/** What the signer adapters read besides their entry: the deadline of one signature and the providers' endpoints. */
export function signerSettings(env: NodeJS.ProcessEnv): SignerSettings {
  const e = readEnv(env);
  return {
    timeoutMs: e.SIGNER_TIMEOUT_MS,
    turnkeyApiBaseUrl: e.TURNKEY_API_BASE_URL,
    cdpApiBaseUrl: e.CDP_API_BASE_URL,
    googleCloudKmsEndpoint: e.GOOGLE_CLOUD_KMS_ENDPOINT,
    azureAuthorityHost: e.AZURE_AUTHORITY_HOST,
    azureFederatedTokenFile: e.AZURE_FEDERATED_TOKEN_FILE,
  };
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
function checkSharedState(
  reason: string | undefined,
  databaseUrl: string | undefined,
  dataDir: string,
  notices: ReferenceNotice[],
): void {
  if (reason === undefined) return;
  const variable = reason.slice(0, reason.indexOf('='));
  if (databaseUrl === undefined) {
    throw new Error(
      `${reason} says several instances share state, which Relaybox keeps only in PostgreSQL: set DATABASE_URL (postgres://…), or remove ${variable} to keep this one instance's state in SQLite in ${dataDir}`,
    );
  }
  notices.push({
    variable,
    level: 'info',
    message: `${reason}: state is shared through PostgreSQL (DATABASE_URL), not Redis`,
  });
}

/** METRICS_ENABLED, when set, decides as in the reference (true: METRICS_PORT, default 8081); unset: METRICS_PORT alone. */
function metricsPort(e: EnvValues, enabled: boolean | undefined): number | undefined {
  if (enabled === false) return undefined;
  if (enabled === true) return e.METRICS_PORT ?? 8081;
  return e.METRICS_PORT;
}

/** Builds the frozen Config from the environment (defaults as documented in docs/operating.md, read from src/config/env.ts). */
export function loadConfig(env: NodeJS.ProcessEnv = processEnv()): Config {
  const e = readEnv(env);
  const location = locateConfig(env, { defaultFile: DEFAULT_CONFIG_PATH, cwd: process.cwd() });
  const configPath = location.file;
  const reference = readReferenceEnv(env, {
    root: location.referenceRoot ?? process.cwd(),
    referenceLayout: location.referenceRoot !== undefined,
  });
  const dataDir = e.DATA_DIR ?? defaultDir(location, 'data');
  let apiKey = e.API_KEY;
  let apiKeyGenerated = false;
  const databaseUrl = e.DATABASE_URL;
  // Several instances share one database: a key generated per process would differ on each of them.
  if (apiKey === '' && databaseUrl !== undefined)
    throw new Error('API_KEY is required when DATABASE_URL is set (every instance must use the same key)');
  if (apiKey === '') {
    apiKey = randomBytes(24).toString('base64url');
    apiKeyGenerated = true;
  } else if (apiKey.length < 32) {
    throw new Error('API_KEY must be at least 32 characters');
  }
  const { encryptionKey, previousKey } = storageKeys(e.STORAGE_ENCRYPTION_KEY, e.STORAGE_ENCRYPTION_KEY_PREVIOUS);
  checkSharedState(reference.sharedState, databaseUrl, dataDir, reference.notices);
  return deepFreeze({
    port: e.PORT ?? reference.port ?? 8080,
    host: e.HOST,
    metricsPort: metricsPort(e, reference.metricsEnabled),
    metricsHost: e.METRICS_HOST ?? e.HOST,
    apiKey,
    apiKeyGenerated,
    configPath,
    configLocation: location,
    dataDir,
    pluginsDir: e.PLUGINS_DIR ?? defaultDir(location, 'plugins'),
    logLevel: e.LOG_LEVEL,
    logOutput: reference.logOutput,
    logFormat: reference.logFormat,
    notices: reference.notices,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    signerTimeoutMs: e.SIGNER_TIMEOUT_MS,
    signerSettings: signerSettings(env),
    rateLimit: { rps: e.RATE_LIMIT_RPS ?? reference.rps ?? 100, burst: e.RATE_LIMIT_BURST ?? reference.burst ?? 300 },
    storageEncryptionKey: encryptionKey,
    storageEncryptionKeyPrevious: previousKey,
    databaseUrl,
    redisUrl: e.REDIS_URL,
    redis: reference.redis,
    rpc: reference.rpc,
    jupiterApiUrl: e.JUPITER_API_URL,
    rpcUrls: { allowedHosts: e.RPC_ALLOWED_HOSTS, blockPrivateIps: e.RPC_BLOCK_PRIVATE_IPS },
    pluginRuntime: pluginRuntime(e),
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      blockPrivateIps: e.WEBHOOK_BLOCK_PRIVATE_IPS,
      backoffBaseMs: e.WEBHOOK_BACKOFF_BASE_MS,
      backoffMaxMs: e.WEBHOOK_BACKOFF_MAX_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
    },
    file: resolveSignerSecrets(resolveNotificationKeys(loadConfigFile(configPath, location), env), env),
  });
}
