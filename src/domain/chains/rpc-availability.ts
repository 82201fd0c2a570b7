// Is a network reachable: from its RPC URLs' health as failover sees it. Every URL down means the relayers on it wait
// (their next steps stay scheduled) and resume when one answers; the status route and readiness say so.
import type { RpcUrlHealth } from './ports.ts';
import type { RpcAvailability } from './views.ts';

export function rpcAvailability(network: string, health: readonly RpcUrlHealth[]): RpcAvailability {
  const up = health.filter((h) => h.up).length;
  if (health.length === 0 || up > 0) return { available: true, urls: health.length, urls_up: up };
  const last = health.find((h) => h.lastError !== null)?.lastError;
  return {
    available: false,
    urls: health.length,
    urls_up: 0,
    reason: `every RPC URL of network '${network}' is down${last ? ` (last error: ${last})` : ''}; its transactions wait and resume when one answers`,
  };
}

/** Why each network some relayer uses is unreachable now (every RPC URL down), once per network; empty when all answer. */
export async function rpcOutages<R extends { network: string }>(relayers: { list(limit: number, offset: number): Promise<R[]> }, availability: (relayer: R) => RpcAvailability): Promise<string[]> {
  const reasons = new Map<string, string>();
  for (let offset = 0; ; offset += 100) {
    const page = await relayers.list(100, offset);
    for (const relayer of page) {
      const rpc = availability(relayer);
      if (!rpc.available && !reasons.has(relayer.network)) reasons.set(relayer.network, rpc.reason!);
    }
    if (page.length < 100) return [...reasons.values()];
  }
}
