// Networks of the config file in the OpenZeppelin Relayer's shape: inline or a directory, `from` inheritance, relayer references.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../validation/compile.ts';
import { networkFileSchema } from './schema.ts';
import { CONFIG_FILE_MAX_BYTES, readJsonFile } from './read-file.ts';
import { findRelative, listLooked } from './locate.ts';

export type NetworkType = 'evm' | 'solana' | 'stellar';

export interface RpcUrlConfig {
  url: string;
  /** 0-100 (default 100): URLs are tried highest weight first; 0 only when every other URL failed. */
  weight: number;
}

/** Extension: a local anvil that Relaybox starts for this network (see src/chains/evm/devnet.ts). */
export interface DevnetConfig {
  /** Absent: automine (one block per transaction). */
  block_time_ms?: number;
  /** Absent or 0: any free loopback port. */
  port?: number;
}

/**
 * A network after loading: `from` resolved (and removed), `rpc_urls` normalized to objects.
 * Fields for other network types are absent. `rpc_urls` is empty only for a `devnet` network.
 */
export interface NetworkConfig {
  type: NetworkType;
  network: string;
  rpc_urls: RpcUrlConfig[];
  explorer_urls?: string[];
  average_blocktime_ms?: number;
  is_testnet?: boolean;
  tags?: string[];
  /** EVM: EIP-155 chain id. */
  chain_id?: number;
  required_confirmations?: number;
  /** EVM: `eip1559` prices with max fee + priority fee; without it, legacy gas price. */
  features?: string[];
  symbol?: string;
  gas_price_cache?: { enabled?: boolean; stale_after_ms?: number; expire_after_ms?: number };
  resubmit_timeout_ms?: number;
  /** EVM extension: broadcasts of one turn as one JSON-RPC batch request; absent: on for a devnet network only. */
  rpc_batch?: boolean;
  devnet?: DevnetConfig;
  /** Stellar: network passphrase. */
  passphrase?: string;
  horizon_url?: string;
}

export type EvmNetworkConfig = NetworkConfig & {
  type: 'evm';
  chain_id: number;
  required_confirmations: number;
  symbol: string;
  average_blocktime_ms: number;
};

/** A network as written: `rpc_urls` entries may be strings, and `from` may leave any field to its parent. */
type RawNetwork = Omit<NetworkConfig, 'rpc_urls'> & { from?: string; rpc_urls?: Array<string | RpcUrlConfig> };

interface Sourced {
  raw: RawNetwork;
  /** Where the entry was written, for messages: `networks.2` or `networks/ethereum.json: networks.0`. */
  at: string;
}

export const DEFAULT_RPC_WEIGHT = 100;

const validateList = compile<{ networks: RawNetwork[] }>(networkFileSchema, 'networks');

/** Fields of the previous config shape: named in the error so an old config file says what to change. */
const REMOVED: Record<string, string> = {
  id: "was renamed to 'network' (the OpenZeppelin Relayer's shape)",
  fees: 'was removed: speed prices now come from the chain (eth_feeHistory / eth_gasPrice)',
};

function checkRemovedFields(list: unknown, where: string): void {
  if (!Array.isArray(list)) return;
  list.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object') return;
    for (const key of Object.keys(REMOVED)) {
      if (key in entry) throw new Error(`${where}networks.${i}.${key} ${REMOVED[key]}`);
    }
  });
}

function validateEntries(value: unknown, where: string): Sourced[] {
  const file = where === '' ? { networks: value } : value;
  checkRemovedFields((file as { networks?: unknown } | null)?.networks, where);
  try {
    return validateList(file).networks.map((raw, i) => ({ raw, at: `${where}networks.${i}` }));
  } catch (err) {
    const reason = (err as { reason?: string }).reason ?? (err as Error).message;
    throw new Error(`${where}${reason}`, { cause: err });
  }
}

/**
 * A directory path is tried against the config file's folder, the reference's working directory (its examples say
 * "./config/networks" from there) and the process's (src/config/locate.ts).
 */
function findDirectory(source: string, bases: readonly string[]): string {
  const { found, looked } = findRelative(source, bases);
  if (!found) throw new Error(`networks: directory '${source}' not found (looked in ${listLooked(looked)})`);
  if (!statSync(found).isDirectory()) throw new Error(`networks: '${found}' is not a directory`);
  return found;
}

function loadDirectory(dir: string): Sourced[] {
  // Every *.json entry is read, and one that is not a regular file (a FIFO, a directory, a device) is refused by name.
  const files = readdirSync(dir)
    .filter((name) => name.toLowerCase().endsWith('.json'))
    .sort();
  if (files.length === 0) throw new Error(`networks: directory '${dir}' holds no JSON network files`);
  return files.flatMap((name) =>
    validateEntries(
      readJsonFile(path.join(dir, name), CONFIG_FILE_MAX_BYTES, 'networks: network file'),
      `networks/${name}: `,
    ),
  );
}

const key = (type: string, name: string) => `${type}:${name}`;

/** Union of two lists, parent entries first (the reference merges `tags` and `features` this way). */
const union = (child?: string[], parent?: string[]) =>
  child || parent ? [...new Set([...(parent ?? []), ...(child ?? [])])] : undefined;

/** Child fields win; lists of tags and features are merged; `devnet` is never inherited (it is one process). */
function merge(child: RawNetwork, parent: RawNetwork): RawNetwork {
  const { devnet: _parentDevnet, ...inherited } = parent;
  const merged: RawNetwork = { ...inherited, ...child };
  const tags = union(child.tags, parent.tags);
  const features = union(child.features, parent.features);
  if (tags) merged.tags = tags;
  if (features) merged.features = features;
  return merged;
}

function resolveOne(entry: Sourced, byKey: Map<string, Sourced>): RawNetwork {
  const trail = [entry.raw.network];
  let resolved = entry.raw;
  let current = entry.raw;
  while (current.from !== undefined) {
    const parent = byKey.get(key(current.type, current.from));
    if (!parent)
      throw new Error(
        `${entry.at}.from: ${current.type} network '${current.network}' inherits from unknown ${current.type} network '${current.from}'`,
      );
    if (trail.includes(parent.raw.network))
      throw new Error(`${entry.at}.from: inheritance cycle: ${[...trail, parent.raw.network].join(' -> ')}`);
    trail.push(parent.raw.network);
    resolved = merge(resolved, parent.raw);
    current = parent.raw;
  }
  return resolved;
}

const REQUIRED: Record<NetworkType, string[]> = {
  evm: ['chain_id', 'required_confirmations', 'symbol', 'average_blocktime_ms'],
  solana: [],
  stellar: ['passphrase'],
};

function finish(raw: RawNetwork, at: string): NetworkConfig {
  const { from: _from, rpc_urls, ...rest } = raw;
  const what = `${at}: ${raw.type} network '${raw.network}'`;
  for (const field of REQUIRED[raw.type]) {
    if ((raw as unknown as Record<string, unknown>)[field] === undefined)
      throw new Error(`${what} needs '${field}' (its own or inherited through 'from')`);
  }
  if (raw.devnet && rpc_urls?.length)
    throw new Error(
      `${what}: a 'devnet' network gets its RPC URL from the devnet; remove 'rpc_urls' (or 'devnet' to use a running node)`,
    );
  if (!raw.devnet && !rpc_urls?.length)
    throw new Error(`${what} needs 'rpc_urls' (its own or inherited through 'from')`);
  const urls = (rpc_urls ?? []).map((u) =>
    typeof u === 'string'
      ? { url: u, weight: DEFAULT_RPC_WEIGHT }
      : { url: u.url, weight: u.weight ?? DEFAULT_RPC_WEIGHT },
  );
  return { ...rest, rpc_urls: urls };
}

/**
 * Loads `networks` (an array, or a directory path tried against `bases`, see src/config/locate.ts), resolves `from`
 * chains (cycles and cross-type parents refused) and checks names are unique per type.
 * Throws an Error naming the entry and the field.
 */
export function loadNetworks(source: unknown, bases: readonly string[]): NetworkConfig[] {
  const entries =
    typeof source === 'string' ? loadDirectory(findDirectory(source, bases)) : validateEntries(source, '');
  const byKey = new Map<string, Sourced>();
  for (const entry of entries) {
    const k = key(entry.raw.type, entry.raw.network);
    const first = byKey.get(k);
    if (first)
      throw new Error(
        `${entry.at}.network: duplicate ${entry.raw.type} network '${entry.raw.network}' (also ${first.at})`,
      );
    byKey.set(k, entry);
  }
  return entries.map((entry) => finish(resolveOne(entry, byKey), entry.at));
}

/** The network a relayer names: by `network` and `network_type`, or by name alone when only one type has it. */
export function findNetwork(
  networks: readonly NetworkConfig[],
  name: string,
  type: NetworkType | undefined,
  at: string,
): NetworkConfig {
  const matches = networks.filter((n) => n.network === name && (type === undefined || n.type === type));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new Error(`${at}.network: unknown ${type ? `${type} ` : ''}network '${name}'`);
  throw new Error(
    `${at}.network_type: required, network '${name}' exists as ${matches.map((n) => n.type).join(' and ')}`,
  );
}
