// What one `evm.check` run knows (Tick) and what the check needs (EvmCheckDeps): the check, its moves and the nonce-gap
// filler all take these, so they live here, below all three, and none of them imports another for its types.
import type { Store } from '../../ports.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import type { RelayerService } from '../../relayers/service.ts';
import type { EvmChain, FeeSuggestions, Receipt } from '../../chains/ports.ts';
import type { Log } from '../../log.ts';
import type { NetworkConfig } from '../../../config/config.ts';
import type { RecordWriter } from '../record-writer.ts';
import type { TransitionObserver } from '../family.ts';
import type { EvmSubmitter } from './submit.ts';
import type { EvmSigner } from './versions.ts';
import type { RelayerEvents } from '../../webhooks/outbox.ts';
import type { LaneState } from '../../relayers/ports.ts';
import type { LaneFunds } from './lane-top-up.ts';

/** What one run knows about the relayer and its chain. */
export interface Tick {
  relayer: RelayerRow;
  chain: EvmChain;
  network: NetworkConfig;
  signer: EvmSigner;
  head: bigint;
  /** Nonces the chain has used (mined) and, with the node's pool, handed out. */
  latest: number;
  pending: number;
  now: number;
  /** The network's prices, read once per run when needed (null when the node does not answer). */
  fees(): Promise<FeeSuggestions | null>;
  /** Broadcasts left in this run (re-broadcasts of dropped transactions are bounded). */
  budget: { broadcasts: number };
  /** Receipts of the blocks read in this run (new since the last run), by hash: no lookup per transaction for them. */
  receipts: ReadonlyMap<string, Receipt>;
  /**
   * The receipt of one of our transactions from a block read again in this run (once per block per run): one it was
   * seen mined in by an earlier run, or one a run missed by a race (receipt-reader.ts). Undefined when not there
   * (reorged, or mined before the blocks remembered): look it up by hash. `mayBeNew`: the transaction is not yet
   * recorded as mined (only such a one can be in a block a race made the run miss).
   */
  receiptInBlocks(hash: string, mayBeNew: boolean): Promise<Receipt | undefined>;
  /** Set when a node without a pool answered "nonce too high": the check runs again at once, with the chain's nonces read afresh. */
  resyncNow?: boolean;
}

/** What the metrics are told of each key pool lane after each check run (observability/lane-metrics.ts). */
export interface LaneObserver {
  lane(relayerId: string, address: string, s: { state: LaneState; balance: bigint | null; pending: number }): void;
}

export interface EvmCheckDeps {
  relayers: RelayerService;
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  submitter: EvmSubmitter;
  logger: Log;
  signer(relayer: RelayerRow): EvmSigner;
  observer?: TransitionObserver | undefined;
  /** Key pools: `relayer_lane_state` events (lane-health.ts). */
  relayerEvents?: RelayerEvents | undefined;
  /** Key pools: each lane's state, balance and pending after each run (metrics). */
  lanes?: LaneObserver | undefined;
  /** Key pools with a funding key: a lane's balance as the check read it (lane-top-up.ts). */
  laneFunds?: LaneFunds | undefined;
  /** The send path's balance read for this relayer or lane is stale (the check found it under its needs). */
  forgetFunds?: ((relayerId: string) => void) | undefined;
}
