// How often an EVM relayer's transactions are checked, and how long a submitted one waits before it is re-priced.
import type { NetworkConfig } from '../../../config/config.ts';
import type { Speed } from '../../chains/ports.ts';
import { isArbitrum } from './network-kind.ts';

/**
 * Blocks to wait for a transaction to be mined before re-pricing it, by speed (explicit prices count as
 * `average`): on a 12 s chain 1, 2, 3 and 5 minutes; on a 1 s local chain 5 to 25 seconds.
 */
const RESUBMIT_BLOCKS: Record<Speed, number> = { fastest: 5, fast: 10, average: 15, safeLow: 25 };
const MIN_RESUBMIT_MS = 2_000;
/** The reference's ARBITRUM_TIME_TO_RESUBMIT: one fixed wait, no growth per attempt. */
const ARBITRUM_RESUBMIT_MS = 20_000;
/** The growth per attempt stops here (a longer configured timeout stands): a waiting transaction is re-priced at least hourly. */
const MAX_RESUBMIT_MS = 3_600_000;

/**
 * The wait before the next re-pricing. As in the reference, it doubles per attempt (`attempts`: versions signed so
 * far, so the first re-pricing waits the base timeout, the second twice it, …), except on Arbitrum.
 */
export function resubmitTimeoutMs(network: NetworkConfig, speed: Speed | null, attempts = 1): number {
  const blockMs = network.average_blocktime_ms ?? 12_000;
  const base =
    network.resubmit_timeout_ms ??
    (isArbitrum(network)
      ? ARBITRUM_RESUBMIT_MS
      : Math.max(MIN_RESUBMIT_MS, RESUBMIT_BLOCKS[speed ?? 'average'] * blockMs));
  if (isArbitrum(network) || attempts <= 1) return base;
  return Math.max(base, Math.min(MAX_RESUBMIT_MS, base * 2 ** Math.min(attempts - 1, 20)));
}

/** A relayer with non-final transactions is checked about twice a block (within 250 ms – 5 s). */
export function checkIntervalMs(network: NetworkConfig): number {
  return Math.min(Math.max((network.average_blocktime_ms ?? 12_000) / 2, 250), 5_000);
}
