// The `lanes` of a pool relayer's record (GET /api/v1/relayers/{id}): our extension, absent without a pool, so a
// relayer with one signer keeps the reference's shape.
import type { EvmChain } from '../chains/ports.ts';
import type { SolanaChains } from '../chains/solana/ports.ts';
import type { StellarChains } from '../chains/stellar/ports.ts';
import type { LaneRow, RelayerRow } from './ports.ts';

export interface LaneView {
  address: string;
  signer_id: string;
  /** The smallest unit (wei, lamports, stroops) as a decimal string; null when the node did not answer. */
  balance: string | null;
  /** Non-final transactions with a nonce (EVM); non-final transactions from the key (Solana, Stellar). */
  pending: number;
  max_pending: number;
  state: LaneRow['state'];
  state_reason: string | null;
}

export async function poolView(
  lanes: readonly LaneRow[],
  pending: Record<string, number>,
  balanceOf: (address: string) => Promise<bigint>,
): Promise<LaneView[]> {
  const balances = await Promise.all(lanes.map((l) => balanceOf(l.address).then(String, () => null)));
  return lanes.map((l, k) => ({
    address: l.address,
    signer_id: l.signer_id,
    balance: balances[k]!,
    pending: pending[l.position === 0 ? '' : l.address] ?? 0,
    max_pending: l.max_pending,
    state: l.state,
    state_reason: l.state_reason,
  }));
}

/** A lane's balance in its family's smallest unit (wei, lamports, stroops; a Stellar account not created yet: 0). */
export function laneBalanceOf(
  chains: Partial<SolanaChains & StellarChains>,
  evm: (relayer: RelayerRow) => EvmChain,
  relayer: RelayerRow,
): (address: string) => Promise<bigint> {
  if (relayer.network_type === 'solana') return (a) => chains.solana!(relayer.network).balance(a);
  if (relayer.network_type === 'stellar')
    return async (a) => (await chains.stellar!(relayer.network).account(a))?.balance ?? 0n;
  return (a) => evm(relayer).balance(a as `0x${string}`);
}
