// Network use cases: list, get, and change RPC URLs at run time (stored, then applied to the chain adapter at once).
import type { NetworkConfig } from '../../config/config.ts';
import { NotFoundError } from '../../errors.ts';
import type { Page, PageRequest, RpcUrl } from '../types.ts';
import type { Log } from '../log.ts';
import type { NetworkOverride, NetworkOverridesRepo, RpcUrlSwitch } from './ports.ts';
import { maskRpcUrls } from './mask.ts';

/** A network as the reference's NetworkResponse: `id` is `<type>:<name>`; RPC URLs masked (they often embed provider keys). */
export interface NetworkView {
  id: string;
  name: string;
  network_type: NetworkConfig['type'];
  rpc_urls: RpcUrl[];
  [field: string]: unknown;
}

export interface NetworkService {
  list(query: PageRequest): Page<NetworkView>;
  get(id: string): NetworkView;
  updateRpcUrls(id: string, urls: RpcUrl[]): Promise<NetworkView>;
  /** The network as loaded (RPC URLs changed through the API applied), or undefined. */
  find(type: NetworkConfig['type'], name: string): NetworkConfig | undefined;
}

const networkId = (n: Pick<NetworkConfig, 'type' | 'network'>) => `${n.type}:${n.network}`;

function toView(n: NetworkConfig): NetworkView {
  const {
    type,
    network,
    rpc_urls,
    devnet: _devnet,
    resubmit_timeout_ms: _resubmit,
    gas_price_cache: _cache,
    ...rest
  } = n;
  return { id: networkId(n), name: network, network_type: type, ...rest, rpc_urls: maskRpcUrls(rpc_urls) };
}

/**
 * The config file's networks with the stored RPC URL changes applied over them (the store wins); each network
 * whose stored URLs differ from the file's is reported once at start (a drift, not an error).
 */
export function applyNetworkOverrides(
  networks: readonly NetworkConfig[],
  overrides: readonly NetworkOverride[],
  logger: Log,
): NetworkConfig[] {
  const byId = new Map(overrides.map((o) => [`${o.network_type}:${o.name}`, o]));
  return networks.map((n) => {
    const o = byId.get(networkId(n));
    if (!o) return n;
    if (JSON.stringify(o.rpc_urls) !== JSON.stringify(n.rpc_urls)) {
      logger.warn(
        { network: networkId(n), changedAt: o.updated_at },
        "config drift: the RPC URLs set through the API replace the config file's for this network (the store wins)",
      );
    }
    return { ...n, rpc_urls: o.rpc_urls };
  });
}

export function createNetworkService(deps: {
  networks: readonly NetworkConfig[];
  repo: NetworkOverridesRepo;
  chains: RpcUrlSwitch;
  logger: Log;
}): NetworkService {
  const networks = new Map(deps.networks.map((n) => [networkId(n), n]));
  const require = (id: string) => {
    const n = networks.get(id);
    if (!n)
      throw new NotFoundError('NETWORK_NOT_FOUND', {
        params: { id },
        reason: `network '${id}' not found (ids are '<type>:<name>', e.g. 'evm:sepolia')`,
      });
    return n;
  };
  return {
    list({ page, per_page }) {
      const all = [...networks.values()].sort((a, b) => networkId(a).localeCompare(networkId(b)));
      const items = all.slice((page - 1) * per_page, page * per_page).map(toView);
      return { items, pagination: { current_page: page, per_page, total_items: all.length } };
    },
    get: (id) => toView(require(id)),
    async updateRpcUrls(id, urls) {
      const n = require(id);
      await deps.repo.put({
        network_type: n.type,
        name: n.network,
        rpc_urls: urls,
        updated_at: new Date().toISOString(),
      });
      deps.chains.setRpcUrls(n.type, n.network, urls);
      const updated = { ...n, rpc_urls: urls };
      networks.set(id, updated);
      deps.logger.info({ network: id, urls: urls.length }, 'network RPC URLs changed');
      return toView(updated);
    },
    find: (type, name) => networks.get(`${type}:${name}`),
  };
}
