// A relayer's balance and status, per network type, in the reference's shapes: read from its network and the store.
import { AppError } from '../../errors.ts';
import type { Chains, EvmChain, Hex } from './ports.ts';
import type { SolanaChain, SolanaChains } from './solana/ports.ts';
import type { StellarChain, StellarChains } from './stellar/ports.ts';
import type { NetworkType, TransactionStatus } from '../types.ts';
import type { BalanceWatchView, JsonInteger, RelayerBalance, RelayerStatus } from './views.ts';
import { rpcAvailability } from './rpc-availability.ts';
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
function jsonInteger(n: bigint): JsonInteger {
  return Number.isSafeInteger(Number(n)) ? Number(n) : rawJson(n.toString());
}

export interface ChainReads {
  /** Smallest unit; a Stellar account not yet created on its network has 0. */
  balance(relayer: RelayerRow): Promise<RelayerBalance>;
  status(relayer: RelayerRow): Promise<RelayerStatus>;
}

/** The relayer's balance in its network's smallest unit (a Stellar account not created yet: 0). */
export async function balanceOf(chains: RelayerChains, relayer: RelayerRow): Promise<bigint> {
  switch (relayer.network_type) {
    case 'evm':
      return chains.evm(relayer).balance(relayer.address as Hex);
    case 'solana':
      return chains.solana(relayer).balance(relayer.address);
    case 'stellar':
      return (await chains.stellar(relayer).account(relayer.address))?.balance ?? 0n;
  }
}

/** The RPC URLs' health of the relayer's network (its custom_rpc_urls for EVM when it has them). */
export function rpcOf(chains: RelayerChains, relayer: RelayerRow) {
  const chain =
    relayer.network_type === 'evm'
      ? chains.evm(relayer)
      : relayer.network_type === 'solana'
        ? chains.solana(relayer)
        : chains.stellar(relayer);
  return rpcAvailability(relayer.network, chain.health());
}

export interface ChainReadsDeps {
  chains: RelayerChains;
  transactions: TransactionsRepo;
  /** The relayer's last balance check (relayers/balance-watch.ts); its balance answers while the network does not. */
  lastBalanceCheck?: (relayerId: string) => Promise<BalanceWatchView | null>;
}

export function createChainReads(deps: ChainReadsDeps): ChainReads {
  const { chains, transactions } = deps;

  const stellarAccount = (relayer: RelayerRow) => chains.stellar(relayer).account(relayer.address);

  async function storeFacts(relayer: RelayerRow) {
    const [counts, confirmed, watch] = await Promise.all([
      Promise.all(PENDING_STATUSES.map((s) => transactions.count(relayer.id, s))),
      // Newest created first; confirmations can land out of creation order, so the latest of the newest few.
      transactions.list(relayer.id, 'confirmed', 10, 0),
      deps.lastBalanceCheck?.(relayer.id) ?? null,
    ]);
    const confirmedAt = confirmed.map((t) => t.confirmed_at).filter((at): at is string => typeof at === 'string');
    return {
      pending_transactions_count: counts.reduce((a, b) => a + b, 0),
      last_confirmed_transaction_timestamp: confirmedAt.length ? confirmedAt.reduce((a, b) => (a > b ? a : b)) : null,
      system_disabled: relayer.system_disabled,
      paused: relayer.paused,
      // Ours, after the reference's fields (the EVM nonce and Stellar sequence come between).
      ours: { disabled_reason: relayer.disabled_reason, rpc: rpcOf(chains, relayer), balance_watch: watch },
    };
  }

  /**
   * The live balance, or while every RPC URL of the network is down the last check's (no call that would wait out
   * every URL's timeout); with neither, CHAIN_UNAVAILABLE saying so.
   */
  async function currentBalance(
    relayer: RelayerRow,
    facts: Pick<Awaited<ReturnType<typeof storeFacts>>, 'ours'>,
  ): Promise<bigint> {
    const { rpc, balance_watch } = facts.ours;
    if (rpc.available) return balanceOf(chains, relayer);
    if (balance_watch) return BigInt(balance_watch.balance);
    throw new AppError('CHAIN_UNAVAILABLE', { reason: rpc.reason ?? `network '${relayer.network}' is not answering` });
  }

  return {
    balance: async (relayer) => ({
      balance: jsonInteger(await balanceOf(chains, relayer)),
      unit: SMALLEST_UNIT[relayer.network_type],
    }),
    async status(relayer) {
      const { ours, ...facts } = await storeFacts(relayer);
      if (relayer.network_type === 'stellar') {
        if (!ours.rpc.available) throw new AppError('CHAIN_UNAVAILABLE', { reason: ours.rpc.reason! });
        const account = await stellarAccount(relayer);
        return {
          network_type: 'stellar',
          balance: String(account?.balance ?? 0n),
          ...facts,
          sequence_number: String(account?.sequence ?? 0n),
          ...ours,
        };
      }
      const balance = await currentBalance(relayer, { ours });
      if (relayer.network_type === 'solana')
        return { network_type: 'solana', balance: String(balance), ...facts, ...ours };
      // The nonce the relayer will use next (its own counter, as the reference's counter store).
      return { network_type: 'evm', balance: String(balance), ...facts, nonce: String(relayer.next_nonce), ...ours };
    },
  };
}
