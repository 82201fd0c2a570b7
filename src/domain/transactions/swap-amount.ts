// How much of a collected fee token a swap sells (Solana and Stellar alike): the reference's calculate_swap_amount.

/** A token's swap limits, in its smallest unit (numbers or decimal strings, as the policies allow). */
export interface SwapLimits {
  max_amount?: number | string | null;
  retain_min_amount?: number | string | null;
  min_amount?: number | string | null;
}

/** Capped by max, leaving retain_min, at least min; 0: no swap. */
export function swapAmount(balance: bigint, c: SwapLimits = {}): bigint {
  let amount = c.max_amount != null && BigInt(c.max_amount) < balance ? BigInt(c.max_amount) : balance;
  if (c.retain_min_amount != null) {
    const retain = BigInt(c.retain_min_amount);
    if (balance <= retain) return 0n;
    if (balance - retain < amount) amount = balance - retain;
  }
  if (c.min_amount != null && amount < BigInt(c.min_amount)) return 0n;
  return amount;
}
