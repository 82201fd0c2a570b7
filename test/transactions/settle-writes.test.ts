// The relayer check's settlements of one turn share one store transaction (src/domain/transactions/evm/settle-writes.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSettleWrites } from '../../src/domain/transactions/evm/settle-writes.ts';
import type { RecordWriter } from '../../src/domain/transactions/record-writer.ts';
import type { Tx } from '../../src/domain/ports.ts';
import type { StoredTransaction } from '../../src/domain/relayers/ports.ts';
import type { TransactionRecord, TransactionStatus } from '../../src/domain/types.ts';

const record = (id: string, status: TransactionStatus): TransactionRecord => ({
  id,
  relayer_id: 'r',
  status,
  status_reason: null,
  created_at: '',
  sent_at: null,
  confirmed_at: null,
});
const stored = (id: string): StoredTransaction => ({ record: record(id, 'submitted'), version: 3 });

/** A store and writer that record each transaction's writes; `stale` ids fail their version check. */
function fakes(stale: string[] = [], failing = false) {
  const transactions: string[][] = [];
  let current: string[] = [];
  const store = {
    async atomically<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      current = [];
      const value = await fn({} as Tx);
      if (failing) throw new Error('commit failed');
      transactions.push(current);
      return value;
    },
  };
  const writer = {
    async updateMany(_tx: Tx, changes: ReadonlyArray<{ stored: StoredTransaction; next: TransactionRecord }>) {
      return changes.map(({ stored: s, next }) => {
        if (stale.includes(next.id) && next.status === 'mined') return null;
        current.push(`${next.id}:${next.status}@${s.version}`);
        return { record: next, version: s.version + 1 };
      });
    },
  } as unknown as RecordWriter;
  return { store, writer, transactions };
}

test('settlements made in one turn are one store transaction: mined, then final over the version it wrote', async () => {
  const { store, writer, transactions } = fakes();
  const write = createSettleWrites({ store, writer });
  await Promise.all([
    write({ stored: stored('a'), mined: record('a', 'mined'), final: record('a', 'confirmed') }),
    write({ stored: stored('b'), mined: record('b', 'mined') }),
    write({ stored: { record: record('c', 'mined'), version: 5 }, final: record('c', 'confirmed') }),
  ]);
  assert.deepEqual(transactions, [['a:mined@3', 'b:mined@3', 'a:confirmed@4', 'c:confirmed@5']]);
  await write({ stored: stored('d'), mined: record('d', 'mined') });
  assert.equal(transactions.length, 2, 'a later turn is a transaction of its own');
});

test('a settlement another writer got to first is left alone; the others are written', async () => {
  const { store, writer, transactions } = fakes(['b']);
  const write = createSettleWrites({ store, writer });
  await Promise.all(
    ['a', 'b'].map((id) => write({ stored: stored(id), mined: record(id, 'mined'), final: record(id, 'confirmed') })),
  );
  assert.deepEqual(transactions, [['a:mined@3', 'a:confirmed@4']]);
});

test('a transaction that fails fails every settlement in it (each is looked at again by the next check)', async () => {
  const { store, writer } = fakes([], true);
  const write = createSettleWrites({ store, writer });
  const results = await Promise.allSettled(
    ['a', 'b'].map((id) => write({ stored: stored(id), mined: record(id, 'mined') })),
  );
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
});
