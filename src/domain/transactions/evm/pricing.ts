// EVM fee pricing: the request's pricing mode, speed prices from the chain, and the 10% replacement bump.
import { ValidationError } from '../../../errors.ts';
import type { FeeSuggestions, Speed } from '../../chains/ports.ts';

export type { Speed };

/** The network's current suggestions (the chain port's `fees`), asked only for a `speed` request. */
export type FeeSource = () => Promise<FeeSuggestions>;

export type Pricing =
  | { type: 'legacy'; gasPrice: bigint }
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

export interface PricingInput {
  gas_price?: bigint;
  max_fee_per_gas?: bigint;
  max_priority_fee_per_gas?: bigint;
  speed?: Speed;
}

/** The previous prices of a transaction being replaced, as stored (decimal strings or null). */
export interface PreviousPrices {
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
}

/** The highest price per gas a pricing offers: the gas price, or the EIP-1559 max fee. */
export const topPrice = (p: Pricing): bigint => (p.type === 'legacy' ? p.gasPrice : p.maxFeePerGas);

/**
 * The relayer's fee cap (`gas_price_cap`, wei; null: none) applied to a pricing: the gas price or the max fee lowered
 * to it, the tip never above the max fee. The one place the cap is applied: every EVM signature's prices pass here.
 */
export function applyFeeCap(p: Pricing, cap: bigint | null): Pricing {
  if (cap === null) return p;
  if (p.type === 'legacy') return p.gasPrice > cap ? { type: 'legacy', gasPrice: cap } : p;
  const maxFeePerGas = p.maxFeePerGas > cap ? cap : p.maxFeePerGas;
  const maxPriorityFeePerGas = p.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : p.maxPriorityFeePerGas;
  return maxFeePerGas === p.maxFeePerGas && maxPriorityFeePerGas === p.maxPriorityFeePerGas
    ? p
    : { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
}

/** `next` offers more per gas than `old` (a re-pricing worth a new signature; at the cap it is not). */
export const raisesPrice = (old: Pricing, next: Pricing): boolean => topPrice(next) > topPrice(old);

/** `max(old * 1.1, old + 1)`, rounded up so the new price is never below 110%. */
export const minimumBump = (old: bigint): bigint => {
  const tenPercent = (old * 11n + 9n) / 10n;
  return tenPercent > old + 1n ? tenPercent : old + 1n;
};

/** Exactly one of gas_price, speed, or both EIP-1559 fields (max fee >= priority fee). */
function checkPricingMode(input: PricingInput): void {
  const fee = input.max_fee_per_gas;
  const tip = input.max_priority_fee_per_gas;
  if ((fee === undefined) !== (tip === undefined)) {
    const missing = fee === undefined ? 'max_fee_per_gas' : 'max_priority_fee_per_gas';
    throw new ValidationError(
      `'${missing}' is required with '${missing === 'max_fee_per_gas' ? 'max_priority_fee_per_gas' : 'max_fee_per_gas'}' (EIP-1559 pricing needs both)`,
    );
  }
  const modes = [
    input.gas_price !== undefined && 'gas_price',
    input.speed !== undefined && 'speed',
    fee !== undefined && 'max_fee_per_gas + max_priority_fee_per_gas',
  ].filter(Boolean);
  if (modes.length === 0)
    throw new ValidationError(
      'one pricing mode is required: gas_price, speed, or max_fee_per_gas with max_priority_fee_per_gas',
    );
  if (modes.length > 1) throw new ValidationError(`exactly one pricing mode is allowed, got ${modes.join(' and ')}`);
  if (fee !== undefined && tip !== undefined && fee < tip) {
    throw new ValidationError(
      `'max_fee_per_gas' (${fee}) must be greater than or equal to 'max_priority_fee_per_gas' (${tip})`,
    );
  }
}

/** Speed prices from the network: EIP-1559 on networks with the `eip1559` feature, legacy otherwise. */
export function speedPricing(speed: Speed, fees: FeeSuggestions): Pricing {
  if (fees.type === 'legacy') return { type: 'legacy', gasPrice: fees.speeds[speed].gasPrice };
  return { type: 'eip1559', ...fees.speeds[speed] };
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

function explicitPricing(input: PricingInput): Pricing {
  if (input.gas_price !== undefined) return { type: 'legacy', gasPrice: input.gas_price };
  return {
    type: 'eip1559',
    maxFeePerGas: input.max_fee_per_gas!,
    maxPriorityFeePerGas: input.max_priority_fee_per_gas!,
  };
}

function tooLow(field: string, given: bigint, minimum: bigint, old: bigint): ValidationError {
  return new ValidationError(
    `'${field}' must be at least ${minimum} to replace this transaction (10% above the previous ${old}); got ${given}`,
  );
}

/**
 * Pricing for a send (no `previous`) or a replace. On replace, explicit prices must clear the
 * bump or the request fails; speed prices are raised to it. The fee cap is compared with the
 * previous cap (gas price for legacy), the tip with the previous tip when there was one.
 */
export async function resolvePricing(
  input: PricingInput,
  fees: FeeSource,
  previous?: PreviousPrices,
): Promise<Pricing> {
  checkPricingMode(input);
  const pricing = input.speed !== undefined ? speedPricing(input.speed, await fees()) : explicitPricing(input);
  if (!previous) return pricing;
  const oldCap = BigInt(previous.max_fee_per_gas ?? previous.gas_price ?? '0');
  const oldTip = previous.max_priority_fee_per_gas === null ? undefined : BigInt(previous.max_priority_fee_per_gas);
  const capMin = minimumBump(oldCap);
  const tipMin = oldTip === undefined ? undefined : minimumBump(oldTip);
  if (input.speed !== undefined) {
    if (pricing.type === 'legacy') return { type: 'legacy', gasPrice: max(pricing.gasPrice, capMin) };
    const tip = tipMin === undefined ? pricing.maxPriorityFeePerGas : max(pricing.maxPriorityFeePerGas, tipMin);
    return { type: 'eip1559', maxPriorityFeePerGas: tip, maxFeePerGas: max(max(pricing.maxFeePerGas, capMin), tip) };
  }
  if (pricing.type === 'legacy') {
    if (pricing.gasPrice < capMin) throw tooLow('gas_price', pricing.gasPrice, capMin, oldCap);
    return pricing;
  }
  if (pricing.maxFeePerGas < capMin) throw tooLow('max_fee_per_gas', pricing.maxFeePerGas, capMin, oldCap);
  if (tipMin !== undefined && pricing.maxPriorityFeePerGas < tipMin)
    throw tooLow('max_priority_fee_per_gas', pricing.maxPriorityFeePerGas, tipMin, oldTip!);
  return pricing;
}
