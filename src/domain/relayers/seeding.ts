// The config file's relayers as store seeds, and the drift report: where the store (changed through the API) and the file disagree.
import type { RelayerConfig } from '../../config/config.ts';
import type { RelayerRow, RelayerSeed } from './ports.ts';
import type { RpcUrl } from '../types.ts';
import { seedHashOf } from './seed-hash.ts';
import type { Log } from '../log.ts';

const DEFAULT_RPC_WEIGHT = 100;

/** `custom_rpc_urls` as written (strings or `{ url, weight }`) → `{ url, weight }`; undefined/null → null. */
export function normalizeRpcUrls(
  urls: ReadonlyArray<string | { url: string; weight?: number }> | null | undefined,
): RpcUrl[] | null {
  if (!urls) return null;
  return urls.map((u) =>
    typeof u === 'string'
      ? { url: u, weight: DEFAULT_RPC_WEIGHT }
      : { url: u.url, weight: u.weight ?? DEFAULT_RPC_WEIGHT },
  );
}

export function seedOf(r: RelayerConfig, address: string): RelayerSeed {
  const fields = {
    id: r.id,
    name: r.name,
    network: r.network,
    network_type: r.network_type!,
    signer_id: r.signer_id,
    address,
    policies: r.policies && Object.keys(r.policies).length ? { ...r.policies } : null,
    custom_rpc_urls: normalizeRpcUrls(r.custom_rpc_urls),
  };
  return {
    ...fields,
    paused: r.paused ?? false,
    notification_id: r.notification_id ?? null,
    initial_nonce: r.initial_nonce ?? 0,
    seed_hash: seedHashOf(fields),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Logs, once per start, every config relayer the store disagrees with (changed or deleted through the API, or an
 * id taken by a relayer created through the API). The store wins until the file entry itself is edited.
 */
export function reportRelayerDrift(
  seeds: readonly RelayerSeed[],
  stored: ReadonlyMap<string, RelayerRow>,
  logger: Log,
): void {
  for (const seed of seeds) {
    const row = stored.get(seed.id);
    if (!row) {
      logger.warn(
        { relayerId: seed.id },
        'config drift: this config relayer was deleted through the API and stays deleted (the store wins; edit its entry to bring it back)',
      );
      continue;
    }
    if (row.source === 'api') {
      logger.warn(
        { relayerId: seed.id },
        "config drift: a relayer created through the API holds this config relayer's id; the config entry is ignored",
      );
      continue;
    }
    const fields = (['name', 'paused', 'notification_id', 'policies', 'custom_rpc_urls'] as const).filter(
      (f) => !same(row[f], seed[f]),
    );
    if (fields.length)
      logger.warn(
        { relayerId: seed.id, fields },
        'config drift: these fields were changed through the API; the store wins over the config file until its entry is edited',
      );
  }
}
