// Configuration: environment plus the JSON config file, validated once at start-up, then frozen.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './validation.ts';
import { configFileSchema } from './config-schema.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_CONFIG_PATH = path.join(PROJECT_ROOT, 'config.example.json');

export type NetworkType = 'evm' | 'solana' | 'stellar';

export interface NetworkConfig {
  id: string;
  type: NetworkType;
  /** EVM: EIP-155 chain id. */
  chain_id?: number;
  /** EVM: fees used for `speed` pricing and defaults, as decimal wei strings. */
  fees?: {
    gas_price?: Record<'safeLow' | 'average' | 'fast' | 'fastest', string>;
    max_priority_fee_per_gas?: Record<'safeLow' | 'average' | 'fast' | 'fastest', string>;
  };
  /** Stellar: network passphrase. */
  passphrase?: string;
}

export interface SignerConfig {
  id: string;
  type: 'local';
  /** Plain key: development only (the example marks it so). */
  private_key?: string;
  /** Name of the environment variable holding the key. */
  private_key_env?: string;
  /** Solana/Stellar signers: the public address the relayer reports. */
  address?: string;
  development?: boolean;
}

export interface RelayerConfig {
  id: string;
  name: string;
  network: string;
  signer_id: string;
  paused?: boolean;
  notification_id?: string | null;
  /** EVM: first nonce used for this relayer when it has no transactions yet. */
  initial_nonce?: number;
}

export interface NotificationConfig {
  id: string;
  type?: 'webhook';
  url: string;
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
}

export interface ConfigFile {
  networks: NetworkConfig[];
  signers: SignerConfig[];
  relayers: RelayerConfig[];
  notifications: NotificationConfig[];
  plugins: PluginConfig[];
}

export interface Config {
  port: number;
  host: string;
  apiKey: string;
  apiKeyGenerated: boolean;
  configPath: string;
  dataDir: string;
  pluginsDir: string;
  logLevel: string;
  rateLimit: { rps: number; burst: number };
  storageEncryptionKey: string | undefined;
  file: ConfigFile;
}

const validateFile = compile<ConfigFile>(configFileSchema, 'config');

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return n;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Reads and validates the config file; throws an Error naming the bad field. */
export function loadConfigFile(configPath: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read config file ${configPath}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const file = validateFile(parsed);
    file.notifications ??= [];
    file.plugins ??= [];
    checkReferences(file);
    return file;
  } catch (err) {
    const reason = (err as { reason?: string }).reason ?? (err as Error).message;
    throw new Error(`invalid config file ${configPath}: ${reason}`, { cause: err });
  }
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
  const networks = unique('network', file.networks.map((n) => n.id));
  const signers = unique('signer', file.signers.map((s) => s.id));
  const notifications = unique('notification', file.notifications.map((n) => n.id));
  unique('relayer', file.relayers.map((r) => r.id));
  unique('plugin', file.plugins.map((p) => p.id));
  file.relayers.forEach((r, i) => {
    if (!networks.has(r.network)) throw new Error(`relayers.${i}.network: unknown network '${r.network}'`);
    if (!signers.has(r.signer_id)) throw new Error(`relayers.${i}.signer_id: unknown signer '${r.signer_id}'`);
    if (r.notification_id && !notifications.has(r.notification_id)) {
      throw new Error(`relayers.${i}.notification_id: unknown notification '${r.notification_id}'`);
    }
  });
}

/** Builds the frozen Config from the environment (defaults as documented in the README). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const configPath = path.resolve(env.CONFIG_PATH || DEFAULT_CONFIG_PATH);
  let apiKey = env.API_KEY ?? '';
  let apiKeyGenerated = false;
  if (apiKey === '') {
    apiKey = randomBytes(24).toString('base64url');
    apiKeyGenerated = true;
  } else if (apiKey.length < 32) {
    throw new Error('API_KEY must be at least 32 characters');
  }
  const encryptionKey = env.STORAGE_ENCRYPTION_KEY || undefined;
  if (encryptionKey !== undefined && encryptionKey.length < 32) {
    throw new Error('STORAGE_ENCRYPTION_KEY must be at least 32 characters');
  }
  return deepFreeze({
    port: positiveInt(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    apiKey,
    apiKeyGenerated,
    configPath,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    pluginsDir: path.resolve(env.PLUGINS_DIR || './plugins'),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimit: { rps: positiveInt(env, 'RATE_LIMIT_RPS', 100), burst: positiveInt(env, 'RATE_LIMIT_BURST', 300) },
    storageEncryptionKey: encryptionKey,
    file: loadConfigFile(configPath),
  });
}
