// "Waiting at the fee cap": the network asks more per gas than the relayer's `gas_price_cap`, and the transaction is
// already offered at the cap. It is not re-priced any more (there is nothing left to raise); its signed version is
// broadcast again as it is, and it leaves the state by itself once the network's price is back under the cap (or a
// new version is signed, or its valid_until passes and a NOOP replaces it). Entering is said once: one status_reason
// write (so one transaction_update event) and one count in relaybox_transaction_fee_cap_waits_total (the writes:
// fee-cap-moves.ts).
import type { FeeSuggestions, Speed } from '../../chains/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import { speedPricing, topPrice } from './pricing.ts';

const PREFIX = 'waiting at the fee cap';

export function feeCapWaitReason(cap: bigint, asks: bigint): string {
  return `${PREFIX}: the network asks ${asks} wei per gas, above the relayer's gas_price_cap of ${cap} wei; not re-priced again until fees fall below it (or valid_until passes)`;
}

export const isWaitingAtCap = (r: Pick<TransactionRecord, 'status_reason'>): boolean =>
  r.status_reason?.startsWith(PREFIX) ?? false;

/** What the network asks per gas for `speed` when that is above `cap`; null when the cap does not bind (or is unknown). */
export function capBinds(fees: FeeSuggestions | null, speed: Speed, cap: bigint | null): bigint | null {
  if (cap === null || !fees) return null;
  const asks = topPrice(speedPricing(speed, fees));
  return asks > cap ? asks : null;
}
