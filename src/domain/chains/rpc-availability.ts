// Is a network reachable: from its RPC URLs' health as failover sees it. Every URL down means the relayers on it wait
// (their next steps stay scheduled) and resume when one answers; the status route and readiness say so.
import type { RpcUrlHealth } from './ports.ts';
import type { RpcAvailability } from './views.ts';

/** URLs that answer but were caught accepting broadcasts (submissions) their node never received (issue 40), one line each. */
function broadcastWarnings(network: string, health: readonly RpcUrlHealth[]): string[] {
  return health
    .filter((h) => h.broadcastsUp === false)
    .map(
      (h) =>
        `RPC URL ${h.url} of network '${network}' is unhealthy for broadcasts: ${h.broadcastError ?? 'it accepted what its node never received'}`,
    );
}

export function rpcAvailability(network: string, health: readonly RpcUrlHealth[]): RpcAvailability {
  const up = health.filter((h) => h.up).length;
  const warnings = broadcastWarnings(network, health);
  if (health.length === 0 || up > 0)
    return {
      available: true,
      urls: health.length,
      urls_up: up,
      ...(warnings.length > 0 ? { broadcast_warnings: warnings } : {}),
    };
  const last = health.find((h) => h.lastError !== null)?.lastError;
  return {
    available: false,
    urls: health.length,
    urls_up: 0,
    reason: `every RPC URL of network '${network}' is down${last ? ` (last error: ${last})` : ''}; its transactions wait and resume when one answers`,
  };
}

/**
 * Why each network some relayer uses is unreachable now (every RPC URL down), or has a URL that swallows broadcasts,
 * once per network; empty when all answer.
 */
export async function rpcOutages<R extends { network: string }>(
  relayers: { list(limit: number, offset: number): Promise<R[]> },
  availability: (relayer: R) => RpcAvailability,
): Promise<string[]> {
  const reasons = new Map<string, string>();
  for (let offset = 0; ; offset += 100) {
    const page = await relayers.list(100, offset);
    for (const relayer of page) {
      const rpc = availability(relayer);
      if (!rpc.available && !reasons.has(relayer.network)) reasons.set(relayer.network, rpc.reason!);
      else if (rpc.broadcast_warnings && !reasons.has(relayer.network))
        reasons.set(relayer.network, rpc.broadcast_warnings.join('; '));
    }
    if (page.length < 100) return [...reasons.values()];
  }
}
