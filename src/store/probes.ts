// Read-only looks at the store for operations: is it answering, and how many transactions per relayer and status.
import type { SqliteStore } from './sqlite/store.ts';

export interface TransactionCountRow {
  relayer_id: string;
  status: string;
  count: number;
}

export interface StoreProbes {
  /** True when the store answers a trivial query; never throws or rejects. */
  answers(): Promise<boolean>;
  /** Rows of transaction_counts (kept exact by every write, so this costs one small scan). */
  transactionCounts(): Promise<TransactionCountRow[]>;
}

/** Both run in turn with transactions, so a scrape never reads a transaction's uncommitted counts. */
export function createStoreProbes(store: SqliteStore): StoreProbes {
  const ping = store.db.prepare('SELECT 1').pluck();
  const counts = store.db.prepare<[], TransactionCountRow>('SELECT relayer_id, status, count FROM transaction_counts');
  return {
    answers: () => store.run(() => ping.get() === 1).catch(() => false),
    transactionCounts: () => store.run(() => counts.all()),
  };
}
