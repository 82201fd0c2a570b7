// What the relayer and transaction use cases need from storage; src/store/<adapter>/ implements these.
// Every method is async and runs either on its own or, reached through `atomically`'s tx, inside that transaction.
import type { NetworkType, TransactionRecord, TransactionStatus } from '../types.ts';

export interface RelayerRow {
  id: string;
  name: string;
  network: string;
  network_type: NetworkType;
  signer_id: string;
  address: string;
  paused: boolean;
  notification_id: string | null;
  next_nonce: number;
  last_created_ms: number;
}

/** A relayer as the config file declares it, before the store tracks its nonce and clock. */
export type RelayerSeed = Omit<RelayerRow, 'next_nonce' | 'last_created_ms'> & { initial_nonce: number };

/** Relayers table. Only active relayers (present in the config) are visible. */
export interface RelayersRepo {
  /**
   * Upserts every configured relayer (atomically) and hides the ones no longer configured. The config
   * owns name, network, signer and address; the store keeps `paused` and `notification_id` once a
   * relayer exists, and the nonce only moves forward (a higher `initial_nonce` takes effect).
   */
  seed(seeds: readonly RelayerSeed[]): Promise<void>;
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
  update(id: string, changes: { paused?: boolean; notification_id?: string | null }): Promise<void>;
  notificationExists(id: string): Promise<boolean>;
  /**
   * Moves the relayer's nonce and clock forward, but only if the nonce still holds the value read
   * (`expectedNonce`); false when another writer got there first (compare-and-set).
   */
  advance(id: string, expectedNonce: number, nextNonce: number, lastCreatedMs: number): Promise<boolean>;
}

export interface StoredTransaction {
  record: TransactionRecord;
  /** Bumped on every update; `update` names the version it read. */
  version: number;
}

/** Transactions table plus its per-relayer, per-status counters (kept in the same transaction as each write). */
export interface TransactionsRepo {
  /** `nonce` is indexed unique per relayer when not null. */
  insert(record: TransactionRecord, createdMs: number, nonce: number | null): Promise<void>;
  get(relayerId: string, id: string): Promise<StoredTransaction | undefined>;
  /** By id alone: background jobs name a transaction by its id. */
  find(id: string): Promise<StoredTransaction | undefined>;
  /** Writes `record` if the row is still at `expectedVersion`; false otherwise (optimistic check). */
  update(record: TransactionRecord, previousStatus: TransactionStatus, expectedVersion: number): Promise<boolean>;
  /** Newest first (created_at, then id, both descending). */
  list(relayerId: string, status: TransactionStatus | undefined, limit: number, offset: number): Promise<TransactionRecord[]>;
  count(relayerId: string, status: TransactionStatus | undefined): Promise<number>;
}
