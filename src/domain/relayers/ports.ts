// What the relayer and transaction use cases need from storage; src/store implements these.
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
  /** Upserts every configured relayer and hides the ones no longer configured. */
  seed(seeds: readonly RelayerSeed[]): void;
  get(id: string): RelayerRow | undefined;
  list(limit: number, offset: number): RelayerRow[];
  count(): number;
  update(id: string, changes: { paused?: boolean; notification_id?: string | null }): void;
  notificationExists(id: string): boolean;
  /**
   * Moves the relayer's nonce and clock forward, but only if they still hold the values read
   * (`expectedNonce`); returns false when another writer got there first.
   */
  advance(id: string, expectedNonce: number, nextNonce: number, lastCreatedMs: number): boolean;
}

export interface StoredTransaction {
  record: TransactionRecord;
  version: number;
}

/** Transactions table plus its per-relayer, per-status counters. */
export interface TransactionsRepo {
  insert(record: TransactionRecord, createdMs: number, nonce: number | null): void;
  get(relayerId: string, id: string): StoredTransaction | undefined;
  /** Writes `record` if the row is still at `expectedVersion`; returns false otherwise. */
  update(record: TransactionRecord, previousStatus: TransactionStatus, expectedVersion: number): boolean;
  list(relayerId: string, status: TransactionStatus | undefined, limit: number, offset: number): TransactionRecord[];
  count(relayerId: string, status: TransactionStatus | undefined): number;
}

/** Runs `fn` inside one SQLite transaction (synchronous only); rolls back if it throws. */
export type Atomically = <T>(fn: () => T) => T;
