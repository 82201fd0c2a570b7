// A relayer's balance and status, per network type, in the reference's shapes: read from its network and the store.
import type { Chains, EvmChain, Hex } from './ports.ts';
import type { SolanaChain, SolanaChains } from './solana/ports.ts';
import type { StellarChain, StellarChains } from './stellar/ports.ts';
import type { NetworkType, TransactionStatus } from '../types.ts';
import type { JsonInteger, RelayerBalance, RelayerStatus } from './views.ts';
import type { RelayerRow, TransactionsRepo } from '../relayers/ports.ts';

/** Every network family's chains (the app's chain registry). */
export type AllChains = Chains & SolanaChains & StellarChains;

/** The chain a relayer talks to, per family (EVM through the relayer service, the one place that decides it). */
export interface RelayerChains {
  evm(relayer: RelayerRow): EvmChain;
  solana(relayer: RelayerRow): SolanaChain;
  stellar(relayer: RelayerRow): StellarChain;
}

const SMALLEST_UNIT: Record<NetworkType, RelayerBalance['unit']> = { evm: 'wei', solana: 'lamport', stellar: 'stroop' };

/** The reference counts these as pending (mined-but-unconfirmed is not among them). */
const PENDING_STATUSES: readonly TransactionStatus[] = ['pending', 'sent', 'submitted'];

const rawJson = (JSON as unknown as { rawJSON(text: string): { readonly rawJSON: string } }).rawJSON;

/** An exact JSON integer: a plain number while it is exact, else its digits written as they are. */
export function jsonInteger(n: bigint): JsonInteger {
  return Number.isSafeInteger(Number(n)) ? Number(n) : rawJson(n.toString());
}

export interface ChainReads {
  /** Smallest unit; a Stellar account not yet created on its network has 0. */
  balance(relayer: RelayerRow): Promise<RelayerBalance>;
  status(relayer: RelayerRow): Promise<RelayerStatus>;
}

export function createChainReads(deps: { chains: RelayerChains; transactions: TransactionsRepo }): ChainReads {
  const { chains, transactions } = deps;

  const stellarAccount = (relayer: RelayerRow) => chains.stellar(relayer).account(relayer.address);

  async function balanceOf(relayer: RelayerRow): Promise<bigint> {
    switch (relayer.network_type) {
      case 'evm':
        return chains.evm(relayer).balance(relayer.address as Hex);
      case 'solana':
        return chains.solana(relayer).balance(relayer.address);
      case 'stellar':
        return (await stellarAccount(relayer))?.balance ?? 0n;
    }
  }

  async function storeFacts(relayer: RelayerRow) {
    const [counts, confirmed] = await Promise.all([
      Promise.all(PENDING_STATUSES.map((s) => transactions.count(relayer.id, s))),
      // Newest created first; confirmations can land out of creation order, so the latest of the newest few.
      transactions.list(relayer.id, 'confirmed', 10, 0),
    ]);
    const confirmedAt = confirmed.map((t) => t.confirmed_at).filter((at): at is string => typeof at === 'string');
    return {
      pending_transactions_count: counts.reduce((a, b) => a + b, 0),
      last_confirmed_transaction_timestamp: confirmedAt.length ? confirmedAt.reduce((a, b) => (a > b ? a : b)) : null,
      system_disabled: relayer.system_disabled,
      paused: relayer.paused,
    };
  }

  return {
    balance: async (relayer) => ({ balance: jsonInteger(await balanceOf(relayer)), unit: SMALLEST_UNIT[relayer.network_type] }),
    async status(relayer) {
      if (relayer.network_type === 'stellar') {
        const [account, facts] = await Promise.all([stellarAccount(relayer), storeFacts(relayer)]);
        return { network_type: 'stellar', balance: String(account?.balance ?? 0n), ...facts, sequence_number: String(account?.sequence ?? 0n) };
      }
      const [balance, facts] = await Promise.all([balanceOf(relayer), storeFacts(relayer)]);
      if (relayer.network_type === 'solana') return { network_type: 'solana', balance: String(balance), ...facts };
      // The nonce the relayer will use next (its own counter, as the reference's counter store).
      return { network_type: 'evm', balance: String(balance), ...facts, nonce: String(relayer.next_nonce) };
    },
  };
}
