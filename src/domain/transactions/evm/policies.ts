// Applies the relayer's EVM policies to a prepared transaction before it is signed (send and replace).
import { ValidationError } from '../../../errors.ts';
import { capPricing, checkEvmPolicies, type EvmPolicies } from '../../relayers/policies.ts';
import type { EvmBody, EvmPrepared } from './transaction.ts';

/**
 * Returns the transaction to sign (speed prices lowered to `gas_price_cap`), or throws a ValidationError naming
 * the policy it breaks. `min_balance` is the funds ledger's to check (funds.ts), with what unmined sends hold.
 */
export function enforceEvmPolicies(policies: EvmPolicies | null, body: EvmBody, prepared: EvmPrepared): EvmPrepared {
  if (!policies || Object.keys(policies).length === 0) return prepared;
  const explicitPrices = body.speed === undefined;
  const p = explicitPrices ? prepared : { ...prepared, pricing: capPricing(policies, prepared.pricing) };
  const tx = {
    to: p.to,
    value: p.value,
    gasLimit: p.gasLimit,
    gasLimitGiven: body.gas_limit !== undefined && body.gas_limit !== null,
    pricing: p.pricing,
    explicitPrices,
  };
  const reason = checkEvmPolicies(policies, tx);
  if (reason) throw new ValidationError(reason);
  return p;
}
