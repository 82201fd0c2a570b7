// Our environment variables as one table: each one's name, how it is parsed (with the sentence a bad value gets),
// its documented default and the page that documents it. test/config/env-table.test.ts holds docs/operating.md's
// table of environment variables and the other pages to it both ways. The reference's own names we only translate or report (APP_PORT, the unused
// PROVIDER_* knobs, …) stay in reference-env.ts, documented in docs/compatibility.md.
import { availableParallelism } from 'node:os';
import path from 'node:path';

export interface EnvVariable<T> {
  name: string;
  /** The value of `raw` (unset and '' mean unset); throws one sentence naming the variable on a bad value. */
  parse: (raw: string | undefined) => T;
  /** The default as documented (the table's `default` column, or the docs page's text). */
  default: string;
  /** Where it is documented: ENV_TABLE (docs/operating.md's table of environment variables) or another docs/ page. */
  doc: string;
}

/** The table of environment variables, where a variable is documented unless it names another page. */
export const ENV_TABLE = 'docs/operating.md#environment-variables';

const present = (raw: string | undefined): raw is string => raw !== undefined && raw !== '';

/** An integer >= min; unset: `fallback` (undefined: the caller decides, from another variable). */
function int(name: string, min: number): (raw: string | undefined) => number | undefined;
function int(name: string, min: number, fallback: number | (() => number)): (raw: string | undefined) => number;
function int(name: string, min: number, fallback?: number | (() => number)) {
  return (raw: string | undefined) => {
    if (!present(raw)) return typeof fallback === 'function' ? fallback() : fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
    return Number(raw);
  };
}

/** Ours: 0, 1, true or false, nothing else. */
const flag =
  (name: string, fallback: boolean) =>
  (raw: string | undefined): boolean => {
    if (!present(raw)) return fallback;
    if (raw !== '0' && raw !== '1' && raw !== 'true' && raw !== 'false')
      throw new Error(`${name} must be 0, 1, true or false, got '${raw}'`);
    return raw === '1' || raw === 'true';
  };

/** The reference's booleans: `true` in any case is true, anything else false; unset: undefined. */
const referenceFlag = (raw: string | undefined): boolean | undefined =>
  present(raw) ? raw.toLowerCase() === 'true' : undefined;

const text = (raw: string | undefined): string | undefined => (present(raw) ? raw : undefined);
const textOr =
  (fallback: string) =>
  (raw: string | undefined): string =>
    present(raw) ? raw : fallback;
const folder = (raw: string | undefined): string | undefined => (present(raw) ? path.resolve(raw) : undefined);

function httpUrl(name: string, fallback: string) {
  return (raw: string | undefined): string => {
    const value = present(raw) ? raw : fallback;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`${name} must be an http(s) URL, got '${value}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${name} must be an http(s) URL, got '${value}'`);
    return value;
  };
}

function oneOf<T extends string>(values: readonly T[], fallback: T, sentence: (raw: string) => string) {
  return (raw: string | undefined): T => {
    const value = (present(raw) ? raw : fallback).toLowerCase() as T;
    if (!values.includes(value)) throw new Error(sentence(raw ?? ''));
    return value;
  };
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** LOG_FORMAT, the reference's names: `compact` (one line per entry), `pretty` (an entry's fields on lines of their own), `json`. */
export type LogFormat = 'compact' | 'pretty' | 'json';
/** SIGNER_TIMEOUT_MS's default: how long one signature (one call to a remote signer) may take. */
export const DEFAULT_SIGNER_TIMEOUT_MS = 10_000;
export const DEFAULT_TURNKEY_API_BASE_URL = 'https://api.turnkey.com';
export const DEFAULT_CDP_API_BASE_URL = 'https://api.cdp.coinbase.com/platform';

const v = <T>(
  name: string,
  parse: (name: string) => (raw: string | undefined) => T,
  byDefault: string,
  doc = ENV_TABLE,
): EnvVariable<T> => ({ name, parse: parse(name), default: byDefault, doc });

/** Every variable of ours, in the table's order (docs/operating.md). */
export const ENV = {
  PORT: v('PORT', (n) => int(n, 0), '`8080`'),
  HOST: v('HOST', () => textOr('127.0.0.1'), '`127.0.0.1`'),
  API_KEY: v('API_KEY', () => (raw) => raw ?? '', 'generated per start'),
  DATABASE_URL: v(
    'DATABASE_URL',
    () => (raw) => {
      if (!present(raw)) return undefined;
      if (!/^postgres(ql)?:\/\//.test(raw))
        throw new Error('DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database)');
      return raw;
    },
    'unset (SQLite in `DATA_DIR`)',
  ),
  REDIS_URL: v('REDIS_URL', () => text, 'unset'),
  RPC_ALLOWED_HOSTS: v(
    'RPC_ALLOWED_HOSTS',
    () => (raw) =>
      (raw ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h !== ''),
    'unset',
  ),
  // On by default, unlike the reference (off): a key that may manage relayers must not reach internal services.
  RPC_BLOCK_PRIVATE_IPS: v('RPC_BLOCK_PRIVATE_IPS', (n) => flag(n, true), '`true`'),
  CONFIG_PATH: v('CONFIG_PATH', () => text, '`config.example.json`'),
  DATA_DIR: v('DATA_DIR', () => folder, '`./data`'),
  PLUGINS_DIR: v('PLUGINS_DIR', () => folder, '`./plugins`'),
  CONFIG_DIR: v('CONFIG_DIR', () => text, 'unset'),
  CONFIG_FILE_NAME: v('CONFIG_FILE_NAME', () => text, '`config.json`'),
  IN_DOCKER: v('IN_DOCKER', () => (raw) => raw === 'true', 'unset'),
  LOG_LEVEL: v(
    'LOG_LEVEL',
    () => oneOf(LOG_LEVELS, 'info', (raw) => `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${raw}'`),
    '`info`',
  ),
  LOG_FORMAT: v(
    'LOG_FORMAT',
    () =>
      oneOf<LogFormat>(
        ['compact', 'pretty', 'json'],
        'compact',
        (raw) => `LOG_FORMAT must be 'compact', 'pretty' or 'json', got '${raw}'`,
      ),
    '`compact`',
  ),
  LOG_MODE: v(
    'LOG_MODE',
    () => oneOf(['stdout', 'file'] as const, 'stdout', (raw) => `LOG_MODE must be 'stdout' or 'file', got '${raw}'`),
    '`stdout`',
  ),
  LOG_DATA_DIR: v('LOG_DATA_DIR', () => textOr('./logs'), '`./logs`'),
  LOG_MAX_SIZE: v('LOG_MAX_SIZE', (n) => int(n, 1, 1_073_741_824), '1 GiB'),
  RATE_LIMIT_RPS: v('RATE_LIMIT_RPS', (n) => int(n, 1), '`100`'),
  RATE_LIMIT_BURST: v('RATE_LIMIT_BURST', (n) => int(n, 1), '`300`'),
  SSL_CERT_FILE: v('SSL_CERT_FILE', () => text, 'unset'),
  REDIS_KEY_PREFIX: v('REDIS_KEY_PREFIX', () => text, 'unset'),
  REDIS_CONNECTION_TIMEOUT_MS: v('REDIS_CONNECTION_TIMEOUT_MS', (n) => int(n, 1), '`2000`'),
  RPC_TIMEOUT_MS: v('RPC_TIMEOUT_MS', (n) => int(n, 1), '`10000`'),
  PROVIDER_RETRY_BASE_DELAY_MS: v('PROVIDER_RETRY_BASE_DELAY_MS', (n) => int(n, 1), '`150`'),
  PROVIDER_MAX_RETRIES: v('PROVIDER_MAX_RETRIES', (n) => int(n, 0), '`2`'),
  PROVIDER_PAUSE_DURATION_SECS: v('PROVIDER_PAUSE_DURATION_SECS', (n) => int(n, 1), '`2`'),
  STORAGE_ENCRYPTION_KEY: v('STORAGE_ENCRYPTION_KEY', () => text, 'unset (one warning at start)'),
  STORAGE_ENCRYPTION_KEY_PREVIOUS: v('STORAGE_ENCRYPTION_KEY_PREVIOUS', () => text, 'unset'),
  WEBHOOK_TIMEOUT_MS: v('WEBHOOK_TIMEOUT_MS', (n) => int(n, 1, 10_000), '`10000`'),
  WEBHOOK_BACKOFF_BASE_MS: v('WEBHOOK_BACKOFF_BASE_MS', (n) => int(n, 1, 2_000), '`2000`'),
  WEBHOOK_BACKOFF_MAX_MS: v('WEBHOOK_BACKOFF_MAX_MS', (n) => int(n, 1, 60_000), '`60000`'),
  WEBHOOK_MAX_ATTEMPTS: v('WEBHOOK_MAX_ATTEMPTS', (n) => int(n, 1, 8), '`8`'),
  WEBHOOK_CONCURRENCY: v('WEBHOOK_CONCURRENCY', (n) => int(n, 1, 16), '`16`'),
  WEBHOOK_POLL_INTERVAL_MS: v('WEBHOOK_POLL_INTERVAL_MS', (n) => int(n, 1, 1_000), '`1000`'),
  WEBHOOK_BLOCK_PRIVATE_IPS: v('WEBHOOK_BLOCK_PRIVATE_IPS', (n) => flag(n, false), '`false`'),
  PLUGIN_CONTEXT_MODE: v(
    'PLUGIN_CONTEXT_MODE',
    () => (raw) => {
      const mode = present(raw) ? raw : 'warm';
      if (mode !== 'warm' && mode !== 'fresh')
        throw new Error(`PLUGIN_CONTEXT_MODE must be 'warm' or 'fresh', got '${mode}'`);
      return mode;
    },
    '`warm`',
  ),
  PLUGIN_THREADS: v(
    'PLUGIN_THREADS',
    (n) => int(n, 1, () => Math.max(1, Math.min(availableParallelism(), 4))),
    'min(CPUs, 4)',
  ),
  // Calls interleave while they await the host; isolate CPU is serialized per plugin, so slots are cheap, and
  // plenty of them keep idle calls (awaiting the host, or hanging) from starving other plugins.
  PLUGIN_CONCURRENCY: v('PLUGIN_CONCURRENCY', (n) => int(n, 1, 32), '`32`'),
  PLUGIN_MAX_QUEUE: v('PLUGIN_MAX_QUEUE', (n) => int(n, 1, 1024), '`1024`'),
  PLUGIN_MAX_CONCURRENT_CALLS: v('PLUGIN_MAX_CONCURRENT_CALLS', (n) => int(n, 1), 'a quarter of the slots'),
  PLUGIN_MAX_QUEUED_CALLS: v('PLUGIN_MAX_QUEUED_CALLS', (n) => int(n, 0), '`256`'),
  PLUGIN_KV_MAX_KEYS: v('PLUGIN_KV_MAX_KEYS', (n) => int(n, 1, 10_000), '`10000`'),
  PLUGIN_KV_MAX_BYTES: v('PLUGIN_KV_MAX_BYTES', (n) => int(n, 1024, 64 * 1024 * 1024), '64 MiB'),
  PLUGIN_QUARANTINE_CRASHES: v('PLUGIN_QUARANTINE_CRASHES', (n) => int(n, 1, 3), '`3`'),
  PLUGIN_QUARANTINE_WINDOW_SEC: v('PLUGIN_QUARANTINE_WINDOW_SEC', (n) => int(n, 1, 600), '`600`'),
  PLUGIN_RUNTIME_STANDBY: v('PLUGIN_RUNTIME_STANDBY', (n) => flag(n, false), '`0`'),
  METRICS_PORT: v('METRICS_PORT', (n) => int(n, 0), 'unset'),
  METRICS_HOST: v('METRICS_HOST', () => text, '`HOST`'),
  METRICS_ENABLED: v('METRICS_ENABLED', () => referenceFlag, 'unset'),
  SIGNER_TIMEOUT_MS: v('SIGNER_TIMEOUT_MS', (n) => int(n, 1, DEFAULT_SIGNER_TIMEOUT_MS), '`10000`'),
  JUPITER_API_URL: v('JUPITER_API_URL', (n) => httpUrl(n, 'https://lite-api.jup.ag'), '`https://lite-api.jup.ag`'),
  // Below Kubernetes' default 30 s before SIGKILL (systemd waits 90 s).
  SHUTDOWN_GRACE_MS: v('SHUTDOWN_GRACE_MS', (n) => int(n, 0, 25_000), '`25000`'),
  // The signers' endpoints (docs/signers.md). A URL is checked when a signer of that type is built, naming the signer.
  TURNKEY_API_BASE_URL: v(
    'TURNKEY_API_BASE_URL',
    () => textOr(DEFAULT_TURNKEY_API_BASE_URL),
    `\`${DEFAULT_TURNKEY_API_BASE_URL}\``,
    'docs/signers.md',
  ),
  CDP_API_BASE_URL: v(
    'CDP_API_BASE_URL',
    () => textOr(DEFAULT_CDP_API_BASE_URL),
    `\`${DEFAULT_CDP_API_BASE_URL}\``,
    'docs/signers.md',
  ),
  GOOGLE_CLOUD_KMS_ENDPOINT: v('GOOGLE_CLOUD_KMS_ENDPOINT', () => text, 'unset', 'docs/signers.md'),
  AZURE_AUTHORITY_HOST: v('AZURE_AUTHORITY_HOST', () => text, 'unset', 'docs/signers.md'),
  AZURE_FEDERATED_TOKEN_FILE: v('AZURE_FEDERATED_TOKEN_FILE', () => text, 'unset', 'docs/signers.md'),
} as const;

export type EnvName = keyof typeof ENV;
/** The parsed value of each variable. */
export type EnvValues = { readonly [K in EnvName]: ReturnType<(typeof ENV)[K]['parse']> };

/**
 * The variables of `env`, each parsed when first read: a start reads them in the order it needs them, so the first
 * bad one it meets is the one refused (as when each was read by hand), and a variable a setting ignores (METRICS_PORT
 * with METRICS_ENABLED=false) is never refused.
 */
export function readEnv(env: NodeJS.ProcessEnv): EnvValues {
  const values = {} as Record<EnvName, unknown>;
  for (const name of Object.keys(ENV) as EnvName[]) {
    Object.defineProperty(values, name, { enumerable: true, get: () => ENV[name].parse(env[name]) });
  }
  return values as EnvValues;
}
