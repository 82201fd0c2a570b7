// SQLite repository for transactions: JSON records, indexed columns, and per-status counters.
import type { Db } from './db.ts';
import type { StoredTransaction, TransactionsRepo } from '../../domain/relayers/ports.ts';
import type { TransactionRecord, TransactionStatus } from '../../domain/types.ts';
import type { SyncOf } from './sync-ops.ts';
import { splitLaneKey } from '../../domain/relayers/lanes.ts';

const stored = (row: { record: string; version: number } | undefined): StoredTransaction | undefined =>
  row && { record: JSON.parse(row.record) as TransactionRecord, version: row.version };

/** The relayers' funds ledger (decimal text: wei pass SQLite's 64-bit integers), for this repo and advanceFrom. */
export function createFundsOps(db: Db): Pick<SyncOf<TransactionsRepo>, 'funds' | 'moveFunds'> {
  const fundsOf = db.prepare<[string], { reserved: string; released: string }>(
    'SELECT reserved, released FROM relayer_funds WHERE relayer_id = ?',
  );
  const putFunds = db.prepare(`
    INSERT INTO relayer_funds (relayer_id, reserved, released) VALUES (?, ?, ?)
    ON CONFLICT (relayer_id) DO UPDATE SET reserved = excluded.reserved, released = excluded.released`);
  const funds = (relayerId: string) => {
    const row = fundsOf.get(relayerId);
    return { reserved: BigInt(row?.reserved ?? 0), released: BigInt(row?.released ?? 0) };
  };
  return {
    funds,
    // Read and written in the caller's transaction (SQLite's one writer): the sum is made exactly, in BigInt.
    moveFunds(relayerId, reserved, released) {
      const was = funds(relayerId);
      putFunds.run(relayerId, (was.reserved + reserved).toString(), (was.released + released).toString());
    },
  };
}

/**
 * Listing uses a deferred join: the offset walks the (relayer_id, [status,] created_ms, id)
 * index, which holds the rowid, and only the page's rows are then read from the table.
 * total_items comes from transaction_counts, kept in the same SQLite transaction as each write.
 */
export function createTransactionsRepo(db: Db): SyncOf<TransactionsRepo> {
  const insert = db.prepare(
    'INSERT INTO transactions (id, relayer_id, status, created_ms, nonce, version, record, lane) VALUES (?, ?, ?, ?, ?, 1, ?, ?)',
  );
  const getOne = db.prepare<[string, string], { record: string; version: number }>(
    'SELECT record, version FROM transactions WHERE id = ? AND relayer_id = ?',
  );
  const findOne = db.prepare<[string], { record: string; version: number }>(
    'SELECT record, version FROM transactions WHERE id = ?',
  );
  const byNonce = db.prepare<[string, string, number], { record: string; version: number }>(
    'SELECT record, version FROM transactions WHERE relayer_id = ? AND lane = ? AND nonce = ?',
  );
  const update = db.prepare(
    'UPDATE transactions SET status = ?, nonce = ?, record = ?, version = version + 1 WHERE id = ? AND version = ?',
  );
  // The same WHERE as the partial index transactions_unfinished, so the planner uses it.
  const unfinished = db.prepare<[string, string, number], { record: string; version: number }>(`
    SELECT record, version FROM transactions INDEXED BY transactions_unfinished
    WHERE relayer_id = ? AND lane = ? AND nonce IS NOT NULL AND (status = 'pending' OR status = 'sent' OR status = 'submitted' OR status = 'mined')
    ORDER BY nonce LIMIT ?`);
  const bump = db.prepare(`
    INSERT INTO transaction_counts (relayer_id, status, count) VALUES (?, ?, ?)
    ON CONFLICT (relayer_id, status) DO UPDATE SET count = count + excluded.count`);
  const pageAll = db
    .prepare<[string, number, number], string>(`
    SELECT t.record FROM (
      SELECT rowid AS rid FROM transactions INDEXED BY transactions_by_relayer
      WHERE relayer_id = ? ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?
    ) AS p JOIN transactions AS t ON t.rowid = p.rid
    ORDER BY t.created_ms DESC, t.id DESC`)
    .pluck();
  const pageByStatus = db
    .prepare<[string, string, number, number], string>(`
    SELECT t.record FROM (
      SELECT rowid AS rid FROM transactions INDEXED BY transactions_by_relayer_status
      WHERE relayer_id = ? AND status = ? ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?
    ) AS p JOIN transactions AS t ON t.rowid = p.rid
    ORDER BY t.created_ms DESC, t.id DESC`)
    .pluck();
  const countAll = db
    .prepare<[string], number>('SELECT COALESCE(SUM(count), 0) FROM transaction_counts WHERE relayer_id = ?')
    .pluck();
  const countByStatus = db
    .prepare<[string, string], number>(
      'SELECT COALESCE(SUM(count), 0) FROM transaction_counts WHERE relayer_id = ? AND status = ?',
    )
    .pluck();
  const ledger = createFundsOps(db);
  const history = db.prepare<[string], { version: number; at_ms: number; record: string }>(
    'SELECT version, at_ms, record FROM transaction_history WHERE transaction_id = ? ORDER BY version',
  );

  const repo: SyncOf<TransactionsRepo> = {
    insert(record, createdMs, nonce, lane = '') {
      insert.run(record.id, record.relayer_id, record.status, createdMs, nonce, JSON.stringify(record), lane);
      bump.run(record.relayer_id, record.status, 1);
    },
    get: (relayerId, id) => stored(getOne.get(id, relayerId)),
    find: (id) => stored(findOne.get(id)),
    findMany: (ids) => ids.flatMap((id) => stored(findOne.get(id)) ?? []),
    // A lane key (domain/relayers/lanes.ts) names one lane of a pool; a relayer id, its first key's.
    getByNonce: (relayerId, nonce) => stored(byNonce.get(...splitLaneKey(relayerId), nonce)),
    update(record, previousStatus, expectedVersion) {
      const nonce = typeof record.nonce === 'number' ? record.nonce : null;
      if (update.run(record.status, nonce, JSON.stringify(record), record.id, expectedVersion).changes !== 1)
        return false;
      if (previousStatus !== record.status) {
        bump.run(record.relayer_id, previousStatus, -1);
        bump.run(record.relayer_id, record.status, 1);
      }
      return true;
    },
    // No round trips to save on SQLite: each in turn, in the caller's transaction.
    updateMany(changes) {
      return changes.map((c) => repo.update(c.record, c.previousStatus, c.expectedVersion));
    },
    listUnfinished: (relayerId, limit) => unfinished.all(...splitLaneKey(relayerId), limit).map((row) => stored(row)!),
    list(relayerId, status, limit, offset) {
      const rows =
        status === undefined
          ? pageAll.all(relayerId, limit, offset)
          : pageByStatus.all(relayerId, status, limit, offset);
      return rows.map((r) => JSON.parse(r) as TransactionRecord);
    },
    count: (relayerId, status?: TransactionStatus) =>
      (status === undefined ? countAll.get(relayerId) : countByStatus.get(relayerId, status)) ?? 0,
    funds: ledger.funds,
    moveFunds: ledger.moveFunds,
    history: (id) =>
      history.all(id).map((row) => ({
        version: row.version,
        at_ms: row.at_ms,
        record: JSON.parse(row.record) as TransactionRecord,
      })),
  };
  return repo;
}
