// Relayer policies (the OpenZeppelin Relayer's `policies`): checked against the schema of the relayer's network type,
// nulls dropped, and the ones Relaybox cannot honour refused with the reason. Used by the config load and the API.
import { compile, type Validator } from '../validation/compile.ts';
import { evmPolicySchema, solanaPolicySchema, stellarPolicySchema } from './schema.ts';
import type { NetworkType } from './networks.ts';
import { ValidationError } from '../errors.ts';

export type RelayerPolicies = Record<string, unknown>;

const validators: Record<NetworkType, Validator<RelayerPolicies>> = {
  evm: compile(evmPolicySchema, 'policies'),
  solana: compile(solanaPolicySchema, 'policies'),
  stellar: compile(stellarPolicySchema, 'policies'),
};

/**
 * Returns the policies as stored (a copy without null fields), or throws a ValidationError naming the field.
 * `private_transactions: true` is refused: Relaybox has no private mempool relay (Flashbots and the like), and
 * sending a transaction publicly that the operator asked to keep private is worse than not sending it.
 */
export function parsePolicies(networkType: NetworkType, raw: unknown): RelayerPolicies {
  let policies: RelayerPolicies;
  try {
    policies = validators[networkType](raw);
  } catch (err) {
    // The validator names fields inside the policies object; name them from the request's top.
    const reason = (err as ValidationError).reason ?? String(err);
    throw new ValidationError(reason.replace(/'(?!policies)([^']+)'/, "'policies.$1'"));
  }
  const kept = Object.fromEntries(Object.entries(policies).filter(([, v]) => v !== null));
  if (kept.private_transactions === true) {
    throw new ValidationError(
      "'policies.private_transactions' cannot be true: Relaybox has no private transaction relay; set it to false or remove it",
    );
  }
  if (
    networkType === 'solana' &&
    (kept.swap_config as { strategy?: string } | undefined)?.strategy === 'jupiter-ultra'
  ) {
    throw new ValidationError(
      "'policies.swap_config.strategy' cannot be 'jupiter-ultra': Relaybox swaps through Jupiter's Swap API only ('jupiter-swap', the same routes); its Ultra API submits transactions itself and is not offered",
    );
  }
  if (
    networkType === 'stellar' &&
    (kept.swap_config as { strategies?: string[] } | undefined)?.strategies?.includes('soroswap')
  ) {
    throw new ValidationError(
      "'policies.swap_config.strategies' cannot include 'soroswap': Soroban token swaps (Soroswap) are not offered by Relaybox, they cannot be tested without a Soroban VM; use 'order-book'",
    );
  }
  return kept;
}
