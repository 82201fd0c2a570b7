// Fee suggestions per speed from what the network reports (fee history, gas price), as pure functions.
import type { FeeSuggestions, Speed } from '../../domain/chains/ports.ts';
import { SPEEDS } from '../../domain/chains/ports.ts';

/** Reward percentiles asked of eth_feeHistory, in SPEEDS order (the reference uses the same ones). */
export const REWARD_PERCENTILES = [30, 50, 85, 99];
/** Blocks of history: enough to smooth one odd block, few enough to follow a spike. */
export const HISTORY_BLOCKS = 5;
/** Legacy gas price, and the tip when blocks carry no tips, scaled per speed (percent). */
const SPEED_PERCENT: Record<Speed, bigint> = { safeLow: 100n, average: 125n, fast: 150n, fastest: 200n };

const scale = (value: bigint, speed: Speed) => (value * SPEED_PERCENT[speed]) / 100n;

/** Each speed at least as high as the slower one before it. */
function monotonic(values: bigint[]): bigint[] {
  return values.map((v, i) => values.slice(0, i + 1).reduce((a, b) => (a > b ? a : b), v));
}

export interface FeeHistory {
  baseFeePerGas: bigint[];
  /** One row per block, one column per REWARD_PERCENTILES entry. */
  reward?: bigint[][] | undefined;
}

/**
 * EIP-1559: the tip per speed is the mean of the non-zero rewards at its percentile over the history
 * (empty blocks say nothing about tips); with no such sample, `nodeTip` (eth_maxPriorityFeePerGas)
 * scaled per speed. The fee cap is twice the next block's base fee plus the tip, which stays valid
 * through six full blocks of base-fee increases (12.5% each).
 */
export function eip1559Suggestions(history: FeeHistory, nodeTip: bigint): Extract<FeeSuggestions, { type: 'eip1559' }> {
  const baseFeePerGas = history.baseFeePerGas.at(-1) ?? 0n;
  const tips = monotonic(
    SPEEDS.map((speed, column) => {
      const samples = (history.reward ?? []).map((row) => row[column] ?? 0n).filter((r) => r > 0n);
      if (samples.length > 0) return samples.reduce((a, b) => a + b, 0n) / BigInt(samples.length);
      return scale(nodeTip, speed);
    }),
  );
  const speeds = Object.fromEntries(
    SPEEDS.map((speed, i) => [speed, { maxPriorityFeePerGas: tips[i]!, maxFeePerGas: 2n * baseFeePerGas + tips[i]! }]),
  );
  return { type: 'eip1559', baseFeePerGas, speeds: speeds as Extract<FeeSuggestions, { type: 'eip1559' }>['speeds'] };
}

/** Legacy: the node's gas price for safeLow, scaled up for faster speeds. */
export function legacySuggestions(gasPrice: bigint): Extract<FeeSuggestions, { type: 'legacy' }> {
  const speeds = Object.fromEntries(SPEEDS.map((speed) => [speed, { gasPrice: scale(gasPrice, speed) }]));
  return { type: 'legacy', speeds: speeds as Extract<FeeSuggestions, { type: 'legacy' }>['speeds'] };
}
