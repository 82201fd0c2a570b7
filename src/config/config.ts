// Configuration: environment plus the JSON config file, validated once at start-up, then frozen.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../validation/compile.ts';
import { configFileSchema } from './schema.ts';
import { findNetwork, loadNetworks, type NetworkConfig, type NetworkType, type RpcUrlConfig } from './networks.ts';
import { parsePolicies, type RelayerPolicies } from './relayer-policies.ts';
import { checkRelayerSigners } from './relayer-pools.ts';
import { checkRegularFile, CONFIG_FILE_MAX_BYTES, KEYSTORE_MAX_BYTES, readJsonFile } from './read-file.ts';
import { findRelative, listLooked, locateConfig, type ConfigLocation } from './locate.ts';
import { readReferenceEnv, type LogFormat, type LogOutput, type RedisOptions, type ReferenceNotice, type RpcEnvSettings } from './reference-env.ts';
import { checkSignerTypes, type SignerType } from './signer-types.ts';
import { applyDefaults, getPath, setPath, SIGNER_SCHEMAS, type SecretRef, type SignerFileConfigs } from './signer-schemas.ts';

export type { DevnetConfig, EvmNetworkConfig, NetworkConfig, NetworkType, RpcUrlConfig } from './networks.ts';
export type { ConfigLocation } from './locate.ts';
export type { SecretRef, SignerFileConfigs, SignerType } from './signer-schemas.ts';
export type { LogFormat, LogOutput, RedisOptions, ReferenceNotice, RpcEnvSettings } from './reference-env.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_CONFIG_PATH = path.join(PROJECT_ROOT, 'config.example.json');

/** Fields of every signer entry, and our extras of a `local` one. */
interface SignerConfigBase {
  id: string;
  /** Plain key: development only (the example marks it so). `local` only. */
  private_key?: string;
  /** Name of the environment variable holding the key. `local` only. */
  private_key_env?: string;
  /** Solana/Stellar local signers: the public address the relayer reports. */
  address?: string;
  development?: boolean;
}

/**
 * One signer entry. `config` is its type's object (src/config/signer-schemas.ts), defaults filled in and every secret
 * field `{ type: 'plain', value }` after load. `local`: the reference's keystore (a relative path is tried as
 * src/config/locate.ts says), or none when our `private_key`/`private_key_env` is given.
 */
export type SignerConfig = {
  [T in SignerType]: SignerConfigBase & { type: T } & (T extends 'local' ? { config?: SignerFileConfigs[T] } : { config: SignerFileConfigs[T] });
}[SignerType];

/** The entry of one signer type (an adapter narrows to its own). */
export type SignerConfigOf<T extends SignerType> = Extract<SignerConfig, { type: T }>;

export interface RelayerConfig {
  id: string;
  name: string;
  /** The network's name; with `network_type` when several network types use that name. */
  network: string;
  /** Filled in at load when absent (inferred from the network's name). */
  network_type?: NetworkType;
  /** Filled in at load from `signer_ids` when absent (its first). */
  signer_id: string;
  /** A key pool (our extension, relayer-pools.ts): every signer, the first the relayer's `signer_id`. */
  signer_ids?: string[];
  /** A key pool's in-flight limit per key (default 16). */
  max_pending_per_key?: number;
  paused?: boolean;
  notification_id?: string | null;
  /** EVM: first nonce used for this relayer when it has no transactions yet. */
  initial_nonce?: number;
  /** The reference's policies for the relayer's network type, nulls dropped (see relayer-policies.ts). */
  policies?: RelayerPolicies;
  /** As written (strings or `{ url, weight }`); normalized by the relayer service. */
  custom_rpc_urls?: Array<string | RpcUrlConfig>;
}

export interface NotificationConfig {
  id: string;
  type?: 'webhook';
  /** '' is accepted (the reference's example has it): events are recorded, not delivered, until a URL is set. */
  url: string;
  /** After load: the key itself (the file may give `{ type, value }`, resolved at start). */
  signing_key?: string;
  signing_key_env?: string;
}

export interface PluginConfig {
  id: string;
  path?: string;
  timeout?: number;
  emit_logs?: boolean;
  emit_traces?: boolean;
  raw_response?: boolean;
  allow_get_invocation?: boolean;
  forward_logs?: boolean;
  memory_mb?: number;
  config?: Record<string, unknown>;
  /** Operator-only limits of this plugin; defaults from PLUGIN_MAX_CONCURRENT_CALLS, … (see PluginRuntimeConfig). */
  max_concurrent_calls?: number;
  max_queued_calls?: number;
  kv_max_keys?: number;
  kv_max_bytes?: number;
  allowed_origins?: string[];
  env?: Record<string, string>;
  /** Names of the service's variables this plugin receives besides those its code names (docs/plugins.md). */
  service_env?: string[];
}

export interface ConfigFile {
  /** As loaded: inline or from a directory, `from` resolved. */
  networks: NetworkConfig[];
  signers: SignerConfig[];
  relayers: RelayerConfig[];
  notifications: NotificationConfig[];
  plugins: PluginConfig[];
}

/** Webhook delivery (env WEBHOOK_*); tests shorten them. */
export interface WebhookSettings {
  /** Per-attempt deadline for the receiver's answer. */
  timeoutMs: number;
  /**
   * WEBHOOK_BLOCK_PRIVATE_IPS (default off): refuse API-given receivers on loopback and private addresses too. Off by
   * default, unlike RPC URLs: receivers are usually the team's own internal services and a delivery's body is never
   * shown back; cloud metadata and unspecified addresses are refused either way.
   */
  blockPrivateIps: boolean;
  /** First retry delay; doubles per attempt up to backoffMaxMs (with jitter). */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Attempts in all, the first included; then the event is marked failed. */
  maxAttempts: number;
  /** Deliveries in flight at once, across all webhooks. */
  concurrency: number;
  /** Longest sleep between two looks at the outbox (writes wake the dispatcher at once anyway). */
  pollIntervalMs: number;
}

export interface Config {
  port: number;
  /** METRICS_PORT: a second listener serving only GET /metrics, without the API key; unset: none. */
  metricsPort: number | undefined;
  /** METRICS_HOST: its address (default HOST). */
  metricsHost: string;
  host: string;
  apiKey: string;
  apiKeyGenerated: boolean;
  configPath: string;
  /** How the config file was found, and the folders its relative paths are tried against (src/config/locate.ts). */
  configLocation: ConfigLocation;
  dataDir: string;
  pluginsDir: string;
  logLevel: string;
  /** LOG_MODE (stdout | file), LOG_DATA_DIR, LOG_MAX_SIZE: the reference's log output. */
  logOutput: LogOutput;
  /** LOG_FORMAT: compact, pretty or json (src/observability/log-format.ts). */
  logFormat: LogFormat;
  /** The reference's variables we read differently or cannot honour: one start-up log line each. */
  notices: ReferenceNotice[];
  /** SIGNER_TIMEOUT_MS: how long one signature by a relayer's signer may take (default 10 s; docs/signers.md). */
  signerTimeoutMs: number;
  /** SHUTDOWN_GRACE_MS: on SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut. */
  shutdownGraceMs: number;
  rateLimit: { rps: number; burst: number };
  storageEncryptionKey: string | undefined;
  /** STORAGE_ENCRYPTION_KEY_PREVIOUS: the key being rotated away from; what it sealed is re-sealed at start. */
  storageEncryptionKeyPrevious: string | undefined;
  /** DATABASE_URL (postgres://…): the shared PostgreSQL store of several instances; unset: SQLite in DATA_DIR. */
  databaseUrl: string | undefined;
  /** REDIS_URL (redis://…): rate limits shared by every instance; unset: per process. */
  redisUrl: string | undefined;
  /** SSL_CERT_FILE (for rediss://), REDIS_KEY_PREFIX, REDIS_CONNECTION_TIMEOUT_MS. */
  redis: RedisOptions;
  /** RPC_TIMEOUT_MS and the PROVIDER_* knobs we have; empty: the chains' defaults. */
  rpc: RpcEnvSettings;
  /**
   * The guard on RPC URLs given through the API (src/net/url-guard.ts). RPC_ALLOWED_HOSTS: comma-separated hosts,
   * the only ones allowed when set. RPC_BLOCK_PRIVATE_IPS (default on): refuse private, loopback and link-local addresses.
   */
  rpcUrls: { allowedHosts: string[]; blockPrivateIps: boolean };
  /** JUPITER_API_URL: Jupiter's Swap API, the Solana fee tokens' price and swap source (default https://lite-api.jup.ag, the reference's). */
  jupiterApiUrl: string;
  webhooks: WebhookSettings;
  /** Plugin runtime process: PLUGIN_CONTEXT_MODE, PLUGIN_THREADS, PLUGIN_CONCURRENCY, PLUGIN_MAX_QUEUE, per-plugin limits. */
  pluginRuntime: PluginRuntimeConfig;
  file: ConfigFile;
}

export interface PluginRuntimeConfig {
  /** warm: loaded contexts reused across calls of a plugin; fresh: a new context per call. */
  contextMode: 'warm' | 'fresh';
  threads: number;
  /** Calls one worker runs at once (they interleave while awaiting api/kv). */
  concurrency: number;
  /** Calls waiting for a slot, all plugins together, before new ones answer 503. */
  maxQueue: number;
  /** Per-plugin defaults (a config `plugins` entry overrides each): calls running at once, calls waiting. */
  maxConcurrentCalls: number;
  maxQueuedCalls: number;
  /** Per-plugin KV quota defaults: keys, and bytes of keys + values. */
  kvMaxKeys: number;
  kvMaxBytes: number;
  /** A plugin that crashes the runtime this many times within the window is quarantined until its file changes. */
  quarantineCrashes: number;
  quarantineWindowSec: number;
  /**
   * PLUGIN_RUNTIME_STANDBY (default off): a booted runtime process in reserve (~90-120 MiB) for faster restarts. Off by
   * default since issue 27: a standby only forked saved nothing measurable, a booted one up to ~0.5 s per restart.
   */
  standby: boolean;
  /** Test-only fault injection (PLUGIN_FAULT_STALL_WORKER): the worker running this plugin's call stops answering. */
  faultStallWorkerOn: string | undefined;
}

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

const validateFile = compile<ConfigFile>(configFileSchema, 'config');

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

/** Where a config file's relative paths are tried (src/config/locate.ts); by default its folder, then the working directory. */
export type ConfigPlaces = Pick<ConfigLocation, 'bases' | 'referenceRoot'>;

/** Reads and validates the config file; throws an Error naming the bad field. */
export function loadConfigFile(configPath: string, places: ConfigPlaces = { bases: [path.dirname(configPath), process.cwd()], referenceRoot: undefined }): ConfigFile {
  // The reason names the path and what is wrong, never the file's text.
  const parsed = readJsonFile(configPath, CONFIG_FILE_MAX_BYTES, 'config file');
  try {
    checkSignerTypes(parsed);
    const file = validateFile(parsed);
    file.networks = file.networks === undefined ? defaultNetworks(file, configPath, places) : loadNetworks(file.networks, places.bases);
    file.notifications ??= [];
    file.plugins ??= [];
    for (const s of file.signers) if (s.config) applyDefaults(SIGNER_SCHEMAS[s.type].schema, s.config);
    resolveKeystorePaths(file, places.bases);
    checkReferences(file);
    return file;
  } catch (err) {
    const reason = (err as { reason?: string }).reason ?? (err as Error).message;
    throw new Error(`invalid config file ${configPath}: ${reason}`, { cause: err });
  }
}

/**
 * `networks` left out: the reference then reads its default directory, `./config/networks` from its working directory.
 * Tried: that folder under the reference root, then `networks/` next to the config file. Neither exists: no networks,
 * which suits a config without relayers; one with relayers is refused, naming where we looked.
 */
function defaultNetworks(file: ConfigFile, configPath: string, places: ConfigPlaces): NetworkConfig[] {
  const candidates = [...new Set([...(places.referenceRoot ? [path.join(places.referenceRoot, 'config', 'networks')] : []), path.join(path.dirname(configPath), 'networks')])];
  const found = candidates.find((dir) => existsSync(dir));
  if (found) return loadNetworks(found, []);
  if (file.relayers.length === 0) return [];
  throw new Error(`networks: not given, and no default networks directory was found (looked in ${listLooked(candidates)}): give "networks" (a list, or a directory such as the reference's config/networks)`);
}

/**
 * A keystore path is tried against the config file's folder, the reference's working directory (its examples say
 * "config/keys/local-signer.json" from there) and the process's (src/config/locate.ts); it becomes absolute here.
 */
function resolveKeystorePaths(file: ConfigFile, bases: readonly string[]): void {
  file.signers.forEach((s, i) => {
    if (s.type !== 'local' || !s.config) return;
    if (s.private_key !== undefined || s.private_key_env !== undefined) throw new Error(`signers.${i}: give either 'config' (a keystore) or 'private_key'/'private_key_env', not both`);
    const { found, looked } = findRelative(s.config.path, bases);
    if (!found) throw new Error(`signers.${i}.config.path: keystore '${s.config.path}' not found (looked in ${listLooked(looked)})`);
    // Refused here, at load, rather than when the signer is first used: a FIFO or a device fails the start at once.
    checkRegularFile(found, KEYSTORE_MAX_BYTES, `signers.${i}.config.path: keystore`);
    s.config.path = found;
  });
}

function checkReferences(file: ConfigFile): void {
  const unique = (kind: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) throw new Error(`duplicate ${kind} id '${id}'`);
      seen.add(id);
    }
    return seen;
  };
  const signers = unique('signer', file.signers.map((s) => s.id));
  const notifications = unique('notification', file.notifications.map((n) => n.id));
  unique('relayer', file.relayers.map((r) => r.id));
  unique('plugin', file.plugins.map((p) => p.id));
  file.relayers.forEach((r, i) => {
    r.network_type = findNetwork(file.networks, r.network, r.network_type, `relayers.${i}`).type;
    checkRelayerSigners(r, i, signers);
    if (r.notification_id && !notifications.has(r.notification_id)) {
      throw new Error(`relayers.${i}.notification_id: unknown notification '${r.notification_id}'`);
    }
    if (r.policies !== undefined) {
      try {
        r.policies = parsePolicies(r.network_type, r.policies);
      } catch (err) {
        throw new Error(`relayers.${i}: ${(err as { reason?: string }).reason ?? (err as Error).message}`, { cause: err });
      }
    }
  });
}

/** The value of a `{ type: env|plain, value }` secret; throws naming `at` when the variable is unset. */
export function resolveSecret(ref: SecretRef, env: NodeJS.ProcessEnv, at: string): string {
  if (ref.type === 'plain') return ref.value;
  const value = env[ref.value];
  if (!value) throw new Error(`${at}: environment variable ${ref.value} is not set`);
  return value;
}

/** Reads `signing_key_env` or a `{ type, value }` signing key of each notification into a plain `signing_key`. */
function resolveNotificationKeys(file: ConfigFile, env: NodeJS.ProcessEnv): ConfigFile {
  file.notifications = file.notifications.map((n, i) => {
    const { signing_key_env: name, signing_key: written, ...entry } = n;
    const given = written as string | SecretRef | undefined;
    let key: string | undefined;
    if (name) key = resolveSecret({ type: 'env', value: name }, env, `notifications.${i}.signing_key_env`);
    else if (given !== undefined && typeof given === 'object') key = resolveSecret(given, env, `notifications.${i}.signing_key`);
    else key = given;
    if (key !== undefined && key.length < 32) {
      const source = name ?? (typeof given === 'object' && given.type === 'env' ? given.value : undefined);
      throw new Error(`notifications.${i}.${name ? 'signing_key_env' : 'signing_key'}: ${source ?? 'the key'} must hold at least 32 characters`);
    }
    // The resolved entry carries the key itself, so it passes the file schema again (test helper).
    return key === undefined ? entry : { ...entry, signing_key: key };
  });
  return file;
}

/**
 * Reads every secret field of every signer given as `{ type: "env" }` (a keystore passphrase, a Vault secret_id, …)
 * from the environment, so adapters read `config.<field>.value` alone; a variable unset fails the start naming the
 * signer, the field and the variable.
 */
function resolveSignerSecrets(file: ConfigFile, env: NodeJS.ProcessEnv): ConfigFile {
  file.signers.forEach((s, i) => {
    if (!s.config) return;
    for (const field of SIGNER_SCHEMAS[s.type].secretFields) {
      const ref = getPath(s.config, field) as SecretRef | undefined;
      if (ref?.type !== 'env') continue;
      let value: string;
      try {
        value = resolveSecret(ref, env, `signers.${i}.config.${field}`);
      } catch (err) {
        throw new Error(`${(err as Error).message} (signer '${s.id}')`, { cause: err });
      }
      setPath(s.config, field, { type: 'plain', value });
    }
  });
  return file;
}

/** STORAGE_ENCRYPTION_KEY, and STORAGE_ENCRYPTION_KEY_PREVIOUS during a rotation (docs/security.md). Never echoed. */
function storageKeys(env: NodeJS.ProcessEnv): { encryptionKey: string | undefined; previousKey: string | undefined } {
  const encryptionKey = env.STORAGE_ENCRYPTION_KEY || undefined;
  const previousKey = env.STORAGE_ENCRYPTION_KEY_PREVIOUS || undefined;
  if (encryptionKey !== undefined && encryptionKey.length < 32) throw new Error('STORAGE_ENCRYPTION_KEY must be at least 32 characters');
  if (previousKey === undefined) return { encryptionKey, previousKey };
  if (encryptionKey === undefined) throw new Error('STORAGE_ENCRYPTION_KEY_PREVIOUS is set without STORAGE_ENCRYPTION_KEY: a rotation needs the new key too');
  if (previousKey.length < 32) throw new Error('STORAGE_ENCRYPTION_KEY_PREVIOUS must be at least 32 characters');
  if (previousKey === encryptionKey) throw new Error('STORAGE_ENCRYPTION_KEY_PREVIOUS is the same as STORAGE_ENCRYPTION_KEY: give the old key there, or unset it');
  return { encryptionKey, previousKey };
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
