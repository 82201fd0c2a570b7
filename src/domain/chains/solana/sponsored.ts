// Solana sponsored transactions through the REST routes (POST …/transactions/sponsored/quote and /build): the
// reference answers them with its feeEstimate and prepareTransaction, so these do too. A refusal is a 400 with the
// reason (the JSON-RPC error's text without its prefix).
import type { SponsoredFamily } from '../../sponsored/ports.ts';
import type { SolanaChains, SolanaSigner } from './ports.ts';
import { feeEstimate, prepareTransaction } from './fee-methods.ts';
import { feePolicy } from './fee-policy.ts';

export function createSolanaSponsored(deps: {
  chains: SolanaChains;
  signer(relayerId: string): SolanaSigner | undefined;
}): SponsoredFamily {
  const context = (relayer: Parameters<SponsoredFamily['quote']>[0]) => ({
    chain: deps.chains.solana(relayer.network),
    relayer,
    policy: feePolicy(relayer),
  });
  return {
    quote: (relayer, body) => feeEstimate(context(relayer), body),
    build: (relayer, body) => prepareTransaction(context(relayer), deps.signer(relayer.id), body),
  };
}
