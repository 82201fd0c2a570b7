// Read-only looks at the store for operations: is it answering, and how many transactions per relayer and status.
import type { Db } from './db.ts';

export interface StoreProbes {
  /** True when SQLite answers `SELECT 1`; never throws. */
  answers(): boolean;
  /** Rows of transaction_counts (kept exact by every write, so this costs one small scan). */
  transactionCounts(): Array<{ relayer_id: string; status: string; count: number }>;
}

export function createStoreProbes(db: Db): StoreProbes {
  const ping = db.prepare('SELECT 1').pluck();
  const counts = db.prepare<[], { relayer_id: string; status: string; count: number }>('SELECT relayer_id, status, count FROM transaction_counts');
  return {
    answers() {
      try {
        return ping.get() === 1;
      } catch {
        return false;
      }
    },
    transactionCounts: () => counts.all(),
  };
}
