// Writes a transaction's new state with its transaction_update event, in the caller's store transaction, and counts
// the status change once it commits. Every status change of every family goes through here.
import type { Tx } from '../ports.ts';
import type { StoredTransaction } from '../relayers/ports.ts';
import type { NetworkType, TransactionRecord } from '../types.ts';
import type { TransactionEvents } from './ports.ts';
import type { TransitionObserver } from './family.ts';

export interface RecordWriter {
  /** Inserts a new record (nonce indexed when not null) with its event. */
  insert(tx: Tx, record: TransactionRecord, createdMs: number, nonce: number | null, networkType: NetworkType): Promise<void>;
  /**
   * Writes `next` over `stored` if nobody changed it since it was read, with its event. Returns the new stored
   * state, or null when another writer got there first (the caller reads again and decides again).
   */
  update(tx: Tx, stored: StoredTransaction, next: TransactionRecord, networkType: NetworkType): Promise<StoredTransaction | null>;
  /** `update` for several records in one write where the store allows it (each still checked against its version). */
  updateMany(tx: Tx, changes: ReadonlyArray<{ stored: StoredTransaction; next: TransactionRecord }>, networkType: NetworkType): Promise<Array<StoredTransaction | null>>;
  /** The record's newest version is being broadcast (nothing written): counted for its re-broadcasts. */
  broadcasting(record: TransactionRecord): void;
}

export function createRecordWriter(deps: { events: TransactionEvents; observer?: TransitionObserver | undefined; onBroadcast?: ((record: TransactionRecord) => void) | undefined }): RecordWriter {
  const { events, observer } = deps;
  /** A change that was written: its event, and its status change counted once the transaction commits. */
  async function written(tx: Tx, stored: StoredTransaction, next: TransactionRecord, networkType: NetworkType): Promise<StoredTransaction> {
    const from = stored.record.status;
    await events.transactionChanged(tx, next);
    if (observer) {
      tx.afterCommit(() => {
        if (from !== next.status) observer.transition(networkType, from, next.status);
        observer.changed?.(next, from);
      });
    }
    return { record: next, version: stored.version + 1 };
  }
  return {
    broadcasting: (record) => deps.onBroadcast?.(record),
    async insert(tx, record, createdMs, nonce, networkType) {
      await tx.transactions.insert(record, createdMs, nonce);
      await events.transactionChanged(tx, record);
      if (observer) {
        tx.afterCommit(() => {
          observer.transition(networkType, null, record.status);
          observer.changed?.(record, null);
        });
      }
    },
    async update(tx, stored, next, networkType) {
      const from = stored.record.status;
      if (!(await tx.transactions.update(next, from, stored.version))) return null;
      return written(tx, stored, next, networkType);
    },
    async updateMany(tx, changes, networkType) {
      const updated = await tx.transactions.updateMany(changes.map((c) => ({ record: c.next, previousStatus: c.stored.record.status, expectedVersion: c.stored.version })));
      const out: Array<StoredTransaction | null> = [];
      for (const [k, c] of changes.entries()) out.push(updated[k] ? await written(tx, c.stored, c.next, networkType) : null);
      return out;
    },
  };
}
