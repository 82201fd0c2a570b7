// The writes of settled transactions (mined, then final) that the relayer check makes in the same event-loop turn
// share one store transaction: the check settles up to 16 at once, and one block often settles a whole batch of sends,
// so that costs one commit (on PostgreSQL, a few round trips) for them instead of one transaction each.
import type { Store } from '../../ports.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import type { RecordWriter } from '../record-writer.ts';

export interface Settlement {
  stored: StoredTransaction;
  /** Written first when the record is newly mined (its own event), then `final` over it when given. */
  mined?: TransactionRecord | undefined;
  final?: TransactionRecord | undefined;
}

interface Queued extends Settlement {
  done: () => void;
  fail: (err: unknown) => void;
}

/**
 * Each settlement is written with its version check, as one update would be: one that another writer changed
 * meanwhile is left as it is (the next check decides again). A failed transaction fails every settlement of it.
 */
export function createSettleWrites(deps: {
  store: Pick<Store, 'atomically'>;
  writer: RecordWriter;
}): (s: Settlement) => Promise<void> {
  const { store, writer } = deps;
  const queue: Queued[] = [];

  async function writeAll(batch: readonly Settlement[]): Promise<void> {
    await store.atomically(async (tx) => {
      const minedOf = batch.filter((s) => s.mined);
      const mined = await writer.updateMany(
        tx,
        minedOf.map((s) => ({ stored: s.stored, next: s.mined! })),
        'evm',
      );
      const after = new Map(minedOf.map((s, k) => [s, mined[k]]));
      const finals: Array<{ stored: StoredTransaction; next: TransactionRecord }> = [];
      for (const s of batch) {
        const current = s.mined ? after.get(s)! : s.stored;
        if (current && s.final) finals.push({ stored: current, next: s.final });
      }
      if (finals.length > 0) await writer.updateMany(tx, finals, 'evm');
    });
  }

  async function flush(): Promise<void> {
    const batch = queue.splice(0);
    try {
      await writeAll(batch);
      for (const s of batch) s.done();
    } catch (err) {
      for (const s of batch) s.fail(err);
    }
  }

  return (settlement) =>
    new Promise<void>((done, fail) => {
      queue.push({ ...settlement, done, fail });
      if (queue.length === 1) setImmediate(() => void flush());
    });
}
