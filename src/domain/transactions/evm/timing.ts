// How often an EVM relayer's transactions are checked, and how long a submitted one waits before it is re-priced.
import type { NetworkConfig } from '../../../config/config.ts';
import type { Speed } from '../../chains/ports.ts';

/**
 * Blocks to wait for a transaction to be mined before re-pricing it, by speed (explicit prices count as
 * `average`): on a 12 s chain 1, 2, 3 and 5 minutes; on a 1 s local chain 5 to 25 seconds.
 */
const RESUBMIT_BLOCKS: Record<Speed, number> = { fastest: 5, fast: 10, average: 15, safeLow: 25 };
const MIN_RESUBMIT_MS = 2_000;

export function resubmitTimeoutMs(network: NetworkConfig, speed: Speed | null): number {
  if (network.resubmit_timeout_ms !== undefined) return network.resubmit_timeout_ms;
  const blockMs = network.average_blocktime_ms ?? 12_000;
  return Math.max(MIN_RESUBMIT_MS, RESUBMIT_BLOCKS[speed ?? 'average'] * blockMs);
}

/** A relayer with non-final transactions is checked about twice a block (within 250 ms – 5 s). */
export function checkIntervalMs(network: NetworkConfig): number {
  return Math.min(Math.max((network.average_blocktime_ms ?? 12_000) / 2, 250), 5_000);
}
