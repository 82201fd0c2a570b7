// The services behind the relayer and transaction routes, composed once at start (after the management services):
// the relayers (seeded from the config), the three network families, the transaction service, token swaps, the
// balance watch and the chain reads. Their background jobs are registered in src/domain/jobs/kinds.ts, not here.
import type { Config } from '../config/config.ts';
import type { NetworkType } from './types.ts';
import type { Store } from './ports.ts';
import type { Log } from './log.ts';
import type { TransactionEvents } from './transactions/ports.ts';
import type { AllChains } from './chains/reads.ts';
import { balanceOf, rpcOf } from './chains/reads.ts';
import { rpcOutages } from './chains/rpc-availability.ts';
import {
  createRelayerChainService,
  relayerChainsOf,
  type RelayerChainService,
} from './chains/relayer-chain-service.ts';
import { createSolanaSponsored } from './chains/solana/sponsored.ts';
import type { SponsoredFamily } from './sponsored/ports.ts';
import { createKeyedLock } from './relayers/keyed-lock.ts';
import { createRelayerService, type RelayerService } from './relayers/service.ts';
import { createBalanceWatch, type BalanceWatch } from './relayers/balance-watch.ts';
import { watchTransactions } from './relayers/transaction-watch.ts';
import { createFamilyLanes, pendingByFrom } from './relayers/family-lanes.ts';
import type { NetworkService } from './networks/service.ts';
import type { SignerService } from './signers/service.ts';
import { createTransactionService, type TransactionService } from './transactions/service.ts';
import { createRecordWriter, type RecordWriter } from './transactions/record-writer.ts';
import { worstCaseOf } from './transactions/evm/funds.ts';
import { createEvmFamily } from './transactions/evm/relay.ts';
import { createSolanaFamily } from './transactions/solana/relay.ts';
import { createSolanaSwaps, SOLANA_SWAP_JOB } from './transactions/solana/token-swap.ts';
import { unconfiguredFamily, type RelayFamily, type TransitionObserver } from './transactions/family.ts';
import type { StageObserver } from './transactions/stage-clock.ts';
import type { LaneObserver } from './transactions/evm/tick.ts';
import { createLaneTopUps, type LaneFunds } from './transactions/evm/lane-top-up.ts';
import type { JobHandler } from './jobs/scheduler.ts';
import { createRelayerEvents, type RelayerEvents } from './webhooks/outbox.ts';

export interface RelayingDeps {
  store: Store;
  config: Config;
  logger: Log;
  events: TransactionEvents;
  chains: AllChains;
  networks: NetworkService;
  signers: SignerService;
  observer?: TransitionObserver;
  /** Relayer webhook events (relayer_low_balance), through the outbox. */
  relayerEvents?: RelayerEvents;
  /** Stage latency, re-prices and re-broadcasts (metrics). */
  stages?: StageObserver;
  /** Key pools: per-lane metrics (observability/lane-metrics.ts). */
  lanes?: LaneObserver & {
    laneSent(relayerId: string, address: string): void;
    laneTopUp?(relayerId: string, network: string): void;
  };
}

/** A kind of background job: its name in the store, its handler, and what schedules its jobs again at start. */
export interface JobKind {
  kind: string;
  handler: JobHandler;
  resume(): Promise<void>;
}

export interface Relaying {
  relayers: RelayerService;
  transactions: TransactionService;
  chain: RelayerChainService;
  families: Record<NetworkType, RelayFamily>;
  /** Stellar's only when a Stellar network is configured (its library loads only then). */
  swaps: { solana: JobKind; stellar: JobKind | undefined };
  sponsored: Partial<Record<NetworkType, SponsoredFamily>>;
  /** Balance checks: the gauges and the relayer status read them; relayer_low_balance comes from them. */
  balanceWatch: BalanceWatch;
  /** Why each network some relayer uses is unreachable now (every RPC URL down); empty when all answer. */
  rpcOutages(): Promise<string[]>;
}

/** Builds the relaying services and seeds the configured relayers into the store. Registers no job (jobs/kinds.ts does). */
export async function createRelaying(deps: RelayingDeps): Promise<Relaying> {
  const { store, config, events, logger } = deps;
  // Solana and Stellar pools take no nonce: their lanes' pending counts are by `from` (relayers/family-lanes.ts).
  const pendingByLane = async (id: string) =>
    pendingByFrom(store.repos.transactions, id, await store.repos.relayers.lanes(id));
  const relayers = await createRelayerService({
    repo: store.repos.relayers,
    config,
    chains: deps.chains,
    networks: deps.networks,
    signers: deps.signers,
    logger,
    pendingByLane,
  });
  const relayerChains = relayerChainsOf(relayers, deps.chains);
  const balanceWatch = createBalanceWatch({
    store,
    events: deps.relayerEvents ?? createRelayerEvents(),
    logger,
    balanceOf: (r) => balanceOf(relayerChains, r),
    fees: (r) => relayers.chain(r).fees(),
  });
  const watched = watchTransactions({
    observer: deps.observer,
    stages: deps.stages,
    balanceWatch,
    relayers: store.repos.relayers,
  });
  // EVM sends hold their worst case of the relayer's funds until mined (the ledger, transactions/evm/funds.ts).
  const writer = createRecordWriter({
    events,
    observer: watched.observer,
    onBroadcast: watched.broadcast,
    worstCase: { evm: worstCaseOf },
    fundsKey: (r) => relayers.laneKeyOf(r.relayer_id, r.from),
  });
  // The Stellar parts load @stellar/stellar-base (~9 MiB): only a config with a Stellar network loads them (networks
  // come from the config alone, so none can appear later).
  const stellar = config.file.networks.some((n) => n.type === 'stellar')
    ? await import('./transactions/stellar/parts.ts')
    : undefined;
  // Top-ups are sent by the transaction service, which the families' check (where lanes' balances are read) precedes.
  let topUps: LaneFunds | undefined;
  const families = createFamilies(deps, relayers, writer, stellar, (r, l, b) => topUps?.(r, l, b) ?? Promise.resolve());
  const transactions = createTransactionService({
    relayers,
    store,
    writer,
    families,
    lock: createKeyedLock(),
    logger,
    laneSent: deps.lanes?.laneSent,
    familyLanes: {
      pending: pendingByLane,
      health: createFamilyLanes({
        store,
        events: deps.relayerEvents,
        logger,
        balance: (r) => balanceOf(relayerChains, r),
      }),
    },
  });
  topUps = createLaneTopUps({
    store,
    lanes: relayers.lanes,
    balanceOf: (r, address) => relayers.chain(r).balance(address as `0x${string}`),
    send: transactions.sendFromLane,
    logger,
    toppedUp: deps.lanes?.laneTopUp,
  });
  const send = async (r: Parameters<typeof transactions.send>[0], body: Parameters<typeof transactions.send>[1]) =>
    (await transactions.send(r, body)).record.id;
  const swapDeps = {
    chains: deps.chains,
    relayers: store.repos.relayers,
    jobs: store.repos.jobs,
    transactions: store.repos.transactions,
    send,
    logger,
  };
  const chain = createRelayerChainService({
    relayers,
    chains: deps.chains,
    transactions: store.repos.transactions,
    lastBalanceCheck: balanceWatch.view,
    send: async (relayer, body) => (await transactions.send(relayer, body)).record,
  });
  return {
    relayers,
    transactions,
    chain,
    families,
    // Token swaps (swap_config): one job per relayer, each swap an ordinary send of the relayer (Solana through Jupiter).
    swaps: {
      stellar: stellar && { kind: stellar.STELLAR_SWAP_JOB, ...stellar.createStellarSwaps(swapDeps) },
      solana: { kind: SOLANA_SWAP_JOB, ...createSolanaSwaps(swapDeps) },
    },
    sponsored: {
      stellar: stellar?.createStellarSponsored({ chains: deps.chains }),
      solana: createSolanaSponsored({ chains: deps.chains, signer: (id) => relayers.signer(id).ed25519 }),
    },
    balanceWatch,
    rpcOutages: () => rpcOutages(store.repos.relayers, (r) => rpcOf(relayerChains, r)),
  };
}

type StellarParts = typeof import('./transactions/stellar/parts.ts');

function createFamilies(
  deps: RelayingDeps,
  relayers: RelayerService,
  writer: RecordWriter,
  stellar: StellarParts | undefined,
  laneFunds: LaneFunds,
): Record<NetworkType, RelayFamily> {
  const { store, logger } = deps;
  const ed25519 = {
    signer: (id: string) => relayers.signer(id).ed25519,
    laneKeyOf: relayers.laneKeyOf,
    isPool: relayers.isPool,
    network: relayers.network,
    store,
    writer,
    logger,
  };
  return {
    evm: createEvmFamily({
      relayers,
      store,
      writer,
      logger,
      observer: deps.observer,
      relayerEvents: deps.relayerEvents,
      lanes: deps.lanes,
      laneFunds,
    }),
    solana: createSolanaFamily({ ...ed25519, chains: deps.chains }),
    stellar: stellar ? stellar.createStellarFamily({ ...ed25519, chains: deps.chains }) : unconfiguredFamily('stellar'),
  };
}
