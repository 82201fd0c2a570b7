// Applies the relayer's EVM policies to a prepared transaction before it is signed (send and replace).
import { ValidationError } from '../../../errors.ts';
import { capPricing, checkEvmPolicies, type EvmPolicies } from '../../relayers/policies.ts';
import type { EvmBody, EvmPrepared } from './transaction.ts';

/**
 * Returns the transaction to sign (speed prices lowered to `gas_price_cap`), or throws a ValidationError naming
 * the policy it breaks. The balance is read only when `min_balance` asks for it.
 */
export async function enforceEvmPolicies(
  policies: EvmPolicies | null,
  body: EvmBody,
  prepared: EvmPrepared,
  readBalance: () => Promise<bigint>,
  extraCost = 0n,
): Promise<EvmPrepared> {
  if (!policies || Object.keys(policies).length === 0) return prepared;
  const explicitPrices = body.speed === undefined;
  const p = explicitPrices ? prepared : { ...prepared, pricing: capPricing(policies, prepared.pricing) };
  const needsBalance = policies.min_balance !== undefined && BigInt(policies.min_balance) > 0n;
  const balance = needsBalance ? await readBalance() : undefined;
  const tx = { to: p.to, value: p.value, gasLimit: p.gasLimit, gasLimitGiven: body.gas_limit !== undefined && body.gas_limit !== null, pricing: p.pricing, explicitPrices, extraCost };
  const reason = checkEvmPolicies(policies, tx, balance);
  if (reason) throw new ValidationError(reason);
  return p;
}
