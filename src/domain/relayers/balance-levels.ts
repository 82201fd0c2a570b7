// A relayer's balance against its min_balance policy: the thresholds, the level it is at, the cost of one send and
// how many such sends the balance still pays for. Pure functions; balance-watch.ts reads the chain and acts.
import type { FeeSuggestions } from '../chains/ports.ts';
import type { NetworkType, TransactionRecord } from '../types.ts';

/** ok; low: under the warning threshold (2 × min_balance); below_min_balance: under min_balance itself. */
export type BalanceLevel = 'ok' | 'low' | 'below_min_balance';

/** The warning threshold is this many times min_balance: a relayer is warned while it can still send. */
const WARNING_FACTOR = 2n;

const RANK: Record<BalanceLevel, number> = { ok: 0, low: 1, below_min_balance: 2 };

/** The level as a number, for the `relaybox_relayer_low_balance` gauge: 0 ok, 1 low, 2 below min_balance. */
export const levelRank = (level: BalanceLevel) => RANK[level];

/** True when `next` is a lower level than `previous` (a crossing down; null: nothing known before). */
export const crossedDown = (previous: BalanceLevel | null, next: BalanceLevel) => RANK[next] > RANK[previous ?? 'ok'];

export interface Thresholds {
  min: bigint;
  warning: bigint;
}

/** From the relayer's `min_balance` policy (smallest unit); null when it has none (or 0): nothing to warn about. */
export function thresholdsOf(policies: Record<string, unknown> | null): Thresholds | null {
  const raw = policies?.min_balance;
  if (raw === undefined || raw === null) return null;
  let min: bigint;
  try {
    min = BigInt(raw as string | number);
  } catch {
    return null;
  }
  return min > 0n ? { min, warning: min * WARNING_FACTOR } : null;
}

export function levelOf(balance: bigint, thresholds: Thresholds | null): BalanceLevel {
  if (!thresholds) return 'ok';
  if (balance < thresholds.min) return 'below_min_balance';
  return balance < thresholds.warning ? 'low' : 'ok';
}

/** A typical send where nothing is pending: a plain EVM transfer, a one-signature Solana fee, Stellar's base fee. */
const TYPICAL_GAS = 21_000n;
const SOLANA_SIGNATURE_FEE = 5_000n;
const STELLAR_BASE_FEE = 100n;

const big = (v: unknown): bigint | null => {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  try {
    return BigInt(v);
  } catch {
    return null;
  }
};

/** An EVM record's worst-case fee: gas limit × the highest price it offers (value left out: it is the caller's). */
function evmMaxFee(r: TransactionRecord): bigint | null {
  const gas = big(r.gas_limit);
  const price = big(r.max_fee_per_gas) ?? big(r.gas_price);
  return gas !== null && price !== null ? gas * price : null;
}

/**
 * The cost of one send: the mean worst-case fee of the relayer's unfinished EVM transactions, else a plain transfer at
 * the network's `fast` price; Solana one signature's fee, Stellar the base fee. null when it cannot be told.
 */
export function sendCost(
  networkType: NetworkType,
  pending: readonly TransactionRecord[],
  fees: FeeSuggestions | null,
): bigint | null {
  if (networkType === 'solana') return SOLANA_SIGNATURE_FEE;
  if (networkType === 'stellar') return STELLAR_BASE_FEE;
  const costs = pending.map(evmMaxFee).filter((c): c is bigint => c !== null && c > 0n);
  if (costs.length > 0) return costs.reduce((a, b) => a + b, 0n) / BigInt(costs.length);
  if (!fees) return null;
  const fast = fees.speeds.fast;
  return TYPICAL_GAS * ('gasPrice' in fast ? fast.gasPrice : fast.maxFeePerGas);
}

/** How many sends of `cost` the balance pays for before it falls under min_balance (0 when already under). */
export function sendsCovered(balance: bigint, thresholds: Thresholds | null, cost: bigint | null): number | null {
  if (cost === null || cost <= 0n) return null;
  const spendable = balance - (thresholds?.min ?? 0n);
  if (spendable <= 0n) return 0;
  const n = spendable / cost;
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}
