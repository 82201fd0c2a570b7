// The reference's EVM relayer policies, checked against one prepared transaction: pure, no I/O (the caller reads the balance).
import { hasWrongChecksum } from '../transactions/evm/address.ts';
import { applyFeeCap, topPrice, type Pricing } from '../transactions/evm/pricing.ts';

export interface EvmPolicies {
  min_balance?: number | string;
  gas_price_cap?: number | string;
  gas_limit_estimation?: boolean;
  whitelist_receivers?: string[];
  eip1559_pricing?: boolean;
  private_transactions?: boolean;
}

/** What the policies look at in a transaction about to be signed. */
export interface PolicyTx {
  /** null: a contract creation. */
  to: string | null;
  value: bigint;
  gasLimit: bigint;
  /** The request gave `gas_limit` (no estimate or default was used). */
  gasLimitGiven: boolean;
  pricing: Pricing;
  /** The request gave its prices (`gas_price` or the EIP-1559 pair), rather than a `speed`. */
  explicitPrices: boolean;
}

/** whitelist_receivers entries with a wrong EIP-55 checksum: accepted (compared in any case), as the reference does; logged. */
export function wrongChecksumReceivers(policies: Record<string, unknown> | null | undefined): string[] {
  const list = policies?.whitelist_receivers;
  return Array.isArray(list) ? list.filter((a): a is string => typeof a === 'string' && hasWrongChecksum(a)) : [];
}

/** The relayer's `gas_price_cap` in wei; null when it has none. */
export function gasPriceCap(policies: EvmPolicies | Record<string, unknown> | null | undefined): bigint | null {
  const cap = policies?.gas_price_cap;
  return typeof cap === 'number' || typeof cap === 'string' ? BigInt(cap) : null;
}

/** The relayer's `min_balance` in wei; 0 when it has none. */
export function minBalance(policies: EvmPolicies | Record<string, unknown> | null | undefined): bigint {
  const min = policies?.min_balance;
  return typeof min === 'number' || typeof min === 'string' ? BigInt(min) : 0n;
}

/** Speed-based prices above `gas_price_cap` are lowered to it (as the reference caps them); explicit ones are checked by checkEvmPolicies. */
export function capPricing(policies: EvmPolicies, pricing: Pricing): Pricing {
  return applyFeeCap(pricing, gasPriceCap(policies));
}

/**
 * The first policy the transaction breaks, as a sentence for the client; null when it passes them all. `min_balance`
 * is not checked here: it needs the balance and what unmined sends hold (transactions/evm/funds.ts).
 */
export function checkEvmPolicies(policies: EvmPolicies, tx: PolicyTx): string | null {
  const whitelist = policies.whitelist_receivers;
  if (whitelist && whitelist.length > 0) {
    if (tx.to === null)
      return "the relayer's whitelist_receivers policy allows no contract creation (a transaction without 'to')";
    const allowed = new Set(whitelist.map((a) => a.toLowerCase()));
    if (!allowed.has(tx.to.toLowerCase())) return `'to' ${tx.to} is not in the relayer's whitelist_receivers policy`;
  }
  if (policies.gas_limit_estimation === false && !tx.gasLimitGiven) {
    return "'gas_limit' is required: the relayer's gas_limit_estimation policy is false";
  }
  if (policies.eip1559_pricing === false && tx.explicitPrices && tx.pricing.type === 'eip1559') {
    return "the relayer's eip1559_pricing policy is false: give 'gas_price' or a 'speed' instead of EIP-1559 fees";
  }
  const price = topPrice(tx.pricing);
  if (policies.gas_price_cap !== undefined && price > BigInt(policies.gas_price_cap)) {
    return `the gas price ${price} wei is above the relayer's gas_price_cap of ${policies.gas_price_cap} wei`;
  }
  return null;
}
