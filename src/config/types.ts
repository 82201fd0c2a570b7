// The configuration's shapes: what loadConfig (config.ts) hands the service, frozen.
import type { NetworkConfig, NetworkType, RpcUrlConfig } from './networks.ts';
import type { RelayerPolicies } from './relayer-policies.ts';
import type { ConfigLocation } from './locate.ts';
import type { LogFormat, LogOutput, RedisOptions, ReferenceNotice, RpcEnvSettings } from './reference-env.ts';
import type { SignerFileConfigs, SignerType } from './signer-schemas.ts';

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
  [T in SignerType]: SignerConfigBase & { type: T } & (T extends 'local'
      ? { config?: SignerFileConfigs[T] }
      : { config: SignerFileConfigs[T] });
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
  /** A key pool's funding signer (relayer-funding.ts): tops its lanes up to `policies.lane_target_balance`. */
  funding_signer_id?: string;
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
  /** SIGNER_TIMEOUT_MS and the signer providers' endpoints (TURNKEY_API_BASE_URL, …): what the signer adapters read. */
  signerSettings: SignerSettings;
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

/** What a signer adapter reads besides its entry (docs/signers.md); a URL is checked when a signer of its type is built. */
export interface SignerSettings {
  /** SIGNER_TIMEOUT_MS: how long one call to a remote signer may take. */
  timeoutMs: number;
  /** TURNKEY_API_BASE_URL, CDP_API_BASE_URL: as given, or the provider's. */
  turnkeyApiBaseUrl: string;
  cdpApiBaseUrl: string;
  /** GOOGLE_CLOUD_KMS_ENDPOINT: in place of the service account's universe. */
  googleCloudKmsEndpoint: string | undefined;
  /** AZURE_AUTHORITY_HOST: the Entra authority; AZURE_FEDERATED_TOKEN_FILE: workload identity's token when the entry names none. */
  azureAuthorityHost: string | undefined;
  azureFederatedTokenFile: string | undefined;
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
}
