// What a network's `tags` (the reference's strings, as its config/networks files set them) change in the EVM
// lifecycle. `no-mempool`, `arbitrum-based` and `optimism-based` (and the deprecated `optimism`) mean a sequencer with
// no public pool: nothing waits in a pool, so a resubmission is priced at the market, not bumped, and "nonce too high"
// means a nonce below is missing. `optimism-based` adds the L1 data fee to the cost; `arbitrum-based` takes gas from
// the node's estimate (it includes the L1 cost), NOOPs included.
import type { NetworkConfig } from '../../../config/config.ts';
import type { EvmChain, Hex } from '../../chains/ports.ts';

const NETWORK_TAGS = {
  noMempool: 'no-mempool',
  arbitrum: 'arbitrum-based',
  optimism: 'optimism-based',
  /** Deprecated in the reference, still read as `optimism-based`. */
  optimismLegacy: 'optimism',
  rollup: 'rollup',
} as const;

const has = (network: Pick<NetworkConfig, 'tags'>, tag: string) => (network.tags ?? []).includes(tag);

export const isOptimism = (n: Pick<NetworkConfig, 'tags'>) =>
  has(n, NETWORK_TAGS.optimism) || has(n, NETWORK_TAGS.optimismLegacy);
export const isArbitrum = (n: Pick<NetworkConfig, 'tags'>) => has(n, NETWORK_TAGS.arbitrum);
export const isRollup = (n: Pick<NetworkConfig, 'tags'>) => has(n, NETWORK_TAGS.rollup);
/** No public pool: the reference's LACKS_MEMPOOL_TAGS. */
export const lacksMempool = (n: Pick<NetworkConfig, 'tags'>) =>
  has(n, NETWORK_TAGS.noMempool) || isArbitrum(n) || isOptimism(n);

/** A NOOP's gas on Arbitrum when the node gives no estimate: the reference's ARBITRUM_GAS_LIMIT (L1 + L2 costs). */
const ARBITRUM_NOOP_GAS = 50_000n;
const NOOP_GAS = 21_000n;

/** Gas for a NOOP (zero-value transfer to `from`): 21,000, or on Arbitrum the node's estimate (at least 21,000). */
export async function noopGasLimit(
  chain: EvmChain,
  network: Pick<NetworkConfig, 'tags'>,
  from: string,
): Promise<bigint> {
  if (!isArbitrum(network)) return NOOP_GAS;
  const estimate = await chain
    .estimateGas({ from: from as Hex, to: from as Hex, data: null, value: 0n })
    .catch(() => null);
  return estimate?.ok ? (estimate.gas > NOOP_GAS ? estimate.gas : NOOP_GAS) : ARBITRUM_NOOP_GAS;
}
