// What the relayer and transaction use cases need from storage; src/store/<adapter>/ implements these.
// Every method is async and runs either on its own or, reached through `atomically`'s tx, inside that transaction.
import type { NetworkType, RpcUrl, TransactionRecord, TransactionStatus } from '../types.ts';

/** Why the system took a relayer out of service (the reference's DisabledReason). */
export interface DisabledReason {
  type: string;
  details: string | string[];
}

export interface RelayerRow {
  id: string;
  name: string;
  network: string;
  network_type: NetworkType;
  signer_id: string;
  address: string;
  paused: boolean;
  notification_id: string | null;
  /** The reference's policies for the network type, as validated (nulls dropped); null when none were given. */
  policies: Record<string, unknown> | null;
  /** Replace the network's RPC URLs for this relayer; null: the network's. */
  custom_rpc_urls: RpcUrl[] | null;
  system_disabled: boolean;
  disabled_reason: DisabledReason | null;
  /** 'config': seeded from the config file; 'api': created through the API. */
  source: 'config' | 'api';
  next_nonce: number;
  last_created_ms: number;
}

/**
 * A relayer as the config file (or a create request) declares it, before the store tracks its nonce and clock.
 * `seed_hash` fingerprints the config-owned fields (name, network, signer, address, policies, custom_rpc_urls).
 */
export type RelayerSeed = Omit<
  RelayerRow,
  'next_nonce' | 'last_created_ms' | 'system_disabled' | 'disabled_reason' | 'source'
> & {
  initial_nonce: number;
  seed_hash: string;
};

/** Fields PATCH /api/v1/relayers/{id} may change. */
export interface RelayerChanges {
  name?: string;
  paused?: boolean;
  notification_id?: string | null;
  policies?: Record<string, unknown> | null;
  custom_rpc_urls?: RpcUrl[] | null;
  /** A key pool's in-flight limit per key (written to its lanes, not the relayer row). */
  max_pending_per_key?: number;
  /** A key pool's keys (pool-changes.ts: written to its lanes). */
  signer_ids?: string[];
  /** A key pool's funding key (funding.ts); null drops it. */
  funding_signer_id?: string | null;
}

/** Why a lane is out of the routing ('active': in it). */
export type LaneState = 'active' | 'fee_cap' | 'stuck' | 'low_balance' | 'signer_failing';

/** One key of a pool as the store keeps it. */
export interface LaneRow {
  relayer_id: string;
  address: string;
  signer_id: string;
  /** 0 for the first key (the relayer row's own), then in `signer_ids` order. */
  position: number;
  max_pending: number;
  /** Unused for position 0 (its nonce is the relayer row's). */
  next_nonce: number;
  last_created_ms: number;
  state: LaneState;
  state_reason: string | null;
}

/** What a pool needs the store to keep of its lanes (RelayersRepo). */
export interface LanesStore {
  /** Every lane of the relayer, position order; empty when it has no pool. */
  lanes(relayerId: string): Promise<LaneRow[]>;
  /**
   * The relayer's lanes become `lanes` (none: no pool): those not stored yet are added, those stored get signer,
   * position and limit rewritten (their nonce kept), the others are deleted.
   */
  saveLanes(
    relayerId: string,
    lanes: ReadonlyArray<Pick<LaneRow, 'relayer_id' | 'address' | 'signer_id' | 'position' | 'max_pending'>>,
  ): Promise<void>;
  /** Every lane's in-flight limit (PATCH max_pending_per_key). */
  setMaxPending(relayerId: string, maxPending: number): Promise<void>;
  /** Writes the lane's state; true when it changed (the caller emits relayer_lane_state). */
  setLaneState(relayerId: string, address: string, state: LaneState, reason: string | null): Promise<boolean>;
  /** Non-final transactions with a nonce per lane ('' the first key's), for the routing and the record. */
  lanePending(relayerId: string): Promise<Record<string, number>>;
}

/**
 * Relayers table. Only active relayers (present in the config) are visible. `get`, `getForUpdate`, `advance` and
 * `advanceFrom` also take a pool's lane key (lanes.ts): they then read and move that lane.
 */
export interface RelayersRepo extends LanesStore {
  /**
   * Upserts every configured relayer (atomically) and hides the config relayers no longer configured;
   * relayers created through the API (`source` 'api') are never touched. A stored config relayer's
   * config-owned fields (name, network, signer, address, policies, custom_rpc_urls) are rewritten only
   * when its `seed_hash` differs from the stored one (the file entry was edited): otherwise the store
   * wins, API changes included. `paused` and `notification_id` are kept once a relayer exists; a relayer
   * deleted through the API stays deleted unless its entry was edited; the nonce only moves forward
   * (a higher `initial_nonce` takes effect).
   */
  seed(seeds: readonly RelayerSeed[]): Promise<void>;
  /**
   * Inserts a relayer created through the API (`source` 'api'); false when the id is taken by a relayer
   * that is not deleted (one hidden because it left the config counts as taken).
   */
  create(seed: RelayerSeed): Promise<boolean>;
  /** Hides the relayer for good (DELETE); false when there is no visible relayer with that id. */
  remove(id: string): Promise<boolean>;
  get(id: string): Promise<RelayerRow | undefined>;
  /**
   * Inside a transaction: reads the relayer and keeps other writers off its row until the transaction
   * ends (PostgreSQL: `SELECT … FOR UPDATE`; SQLite: the transaction already holds the write lock).
   * The nonce read here can be allocated with `advance` in the same transaction without a race.
   */
  getForUpdate(id: string): Promise<RelayerRow | undefined>;
  /** Active relayers ordered by id. */
  list(limit: number, offset: number): Promise<RelayerRow[]>;
  count(): Promise<number>;
  update(id: string, changes: RelayerChanges): Promise<void>;
  /** Marks the relayer disabled by the system (reason set) or back in service (null). */
  setSystemDisabled(id: string, reason: DisabledReason | null): Promise<void>;
  /** Active relayers using the signer (ids, at most 10), for refusing its deletion. */
  usingSigner(signerId: string): Promise<string[]>;
  notificationExists(id: string): Promise<boolean>;
  /**
   * Moves the relayer's nonce and clock forward, but only if the nonce still holds the value read
   * (`expectedNonce`); false when another writer got there first (compare-and-set).
   */
  advance(id: string, expectedNonce: number, nextNonce: number, lastCreatedMs: number): Promise<boolean>;
  /**
   * Inside a transaction: `advance` and `getForUpdate` in one statement. Moves the visible relayer's nonce and clock
   * to `to` if they still hold `from`, and answers its row as written (locked until the transaction ends); undefined
   * when the relayer is gone or another writer moved them. `reserve` (wei, the batch's sends' worst cases) is added
   * to the relayer's funds ledger by the same statement where the store allows (one round trip on PostgreSQL), and
   * the ledger as written is answered as `funds`.
   */
  advanceFrom(
    id: string,
    from: NonceAndClock,
    to: NonceAndClock,
    reserve?: bigint,
  ): Promise<(RelayerRow & { funds?: FundsLedger }) | undefined>;
}

export type NonceAndClock = Pick<RelayerRow, 'next_nonce' | 'last_created_ms'>;

export interface StoredTransaction {
  record: TransactionRecord;
  /** Bumped on every update; `update` names the version it read. */
  version: number;
}

/** Transactions table plus its per-relayer, per-status counters (kept in the same transaction as each write). */
export interface TransactionsRepo {
  /** `nonce` is indexed unique per relayer and lane (`lane`: '' for the first key, else the pool key's address). */
  insert(record: TransactionRecord, createdMs: number, nonce: number | null, lane?: string): Promise<void>;
  get(relayerId: string, id: string): Promise<StoredTransaction | undefined>;
  /** By id alone: background jobs name a transaction by its id. */
  find(id: string): Promise<StoredTransaction | undefined>;
  /** `find` for several ids at once (one read): those that exist, in no particular order. */
  findMany(ids: readonly string[]): Promise<StoredTransaction[]>;
  /** The relayer's (or lane key's: lanes.ts) transaction holding `nonce` in the indexed column (EVM: at most one per lane). */
  getByNonce(relayerId: string, nonce: number): Promise<StoredTransaction | undefined>;
  /**
   * Writes `record` if the row is still at `expectedVersion`; false otherwise (optimistic check). The indexed
   * nonce follows `record.nonce` when it is a number (an EVM transaction given a new nonce), else stays null.
   */
  update(record: TransactionRecord, previousStatus: TransactionStatus, expectedVersion: number): Promise<boolean>;
  /** `update` for several records at once (one statement where the store allows): whether each was written. */
  updateMany(
    changes: ReadonlyArray<{ record: TransactionRecord; previousStatus: TransactionStatus; expectedVersion: number }>,
  ): Promise<boolean[]>;
  /**
   * The relayer's (its first key's; a lane key's: that lane's) non-final transactions (pending, sent, submitted, mined) that have a nonce, lowest nonce first,
   * at most `limit`: what background tracking walks, without reading the final ones.
   */
  listUnfinished(relayerId: string, limit: number): Promise<StoredTransaction[]>;
  /** Newest first (created_at, then id, both descending). */
  list(
    relayerId: string,
    status: TransactionStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<TransactionRecord[]>;
  count(relayerId: string, status: TransactionStatus | undefined): Promise<number>;
  /** Every state the transaction was written in, oldest first (the store's append-only history; its timeline). */
  history(id: string): Promise<TransactionSnapshot[]>;
  /** The relayer's funds ledger (zeros when it has none yet). */
  funds(relayerId: string): Promise<FundsLedger>;
  /**
   * Adds to the relayer's ledger (a negative `reserved` releases), exactly (no float), in the caller's transaction.
   * PostgreSQL applies it as the commit's last statement, so the ledger row is never held while other rows are taken.
   */
  moveFunds(relayerId: string, reserved: bigint, released: bigint): Promise<void>;
}

/** A relayer's funds ledger, in the chain's smallest unit (wei). */
export interface FundsLedger {
  /** Promised to its unmined sends, each at its worst case. */
  reserved: bigint;
  /** Released so far by sends that went final (only grows): how stale a balance read before them may be. */
  released: bigint;
}

/** One written state of a transaction: the record as it was stored, and when. */
export interface TransactionSnapshot {
  version: number;
  at_ms: number;
  record: TransactionRecord;
}
