// PostgreSQL repository for transactions: JSON records, indexed columns, and per-status counters kept in the same statement.
import { sql, type Kysely } from 'kysely';
import type { StoredTransaction, TransactionsRepo } from '../../domain/relayers/ports.ts';
import type { TransactionRecord } from '../../domain/types.ts';
import type { Database } from './schema.ts';
import { addCount, insertTransactions, type CountChanges } from './write-buffer.ts';
import { splitLaneKey } from '../../domain/relayers/lanes.ts';

const stored = (row: { record: string; version: number } | undefined): StoredTransaction | undefined =>
  row && { record: JSON.parse(row.record) as TransactionRecord, version: row.version };

/** Told, inside a transaction, the notification of each relayer whose record it updated (read by the same statement). */
export type NotificationSeen = (relayerId: string, notificationId: string | null) => void;

/** The relayer's notification beside an updated record: its event is then written without a read of its own. */
const NOTIFICATION_OF_ROW = (t: string) =>
  sql.raw(`(SELECT r.notification_id FROM relayers r WHERE r.id = ${t}.relayer_id) AS notification_id`);

/** Inside a transaction: the funds ledger's moves, applied at its commit (write-buffer.ts). */
export type HeldFunds = (relayerId: string, reserved: bigint, released: bigint) => void;

/**
 * Outside a transaction each write and its counter change are one statement (data-modifying CTE): one round trip,
 * never apart. Inside one (`counts` given), counter changes are collected and applied at its end (write-buffer.ts).
 */
export function createTransactionsRepo(
  q: Kysely<Database>,
  counts?: CountChanges,
  seen?: NotificationSeen,
  heldFunds?: HeldFunds,
): TransactionsRepo {
  return {
    insert: (record, createdMs, nonce, lane) =>
      insertTransactions(q, [{ record, createdMs, nonce, ...(lane ? { lane } : {}) }], counts),
    get: async (relayerId, id) =>
      stored(
        await q
          .selectFrom('transactions')
          .select(['record', 'version'])
          .where('id', '=', id)
          .where('relayer_id', '=', relayerId)
          .executeTakeFirst(),
      ),
    find: async (id) =>
      stored(await q.selectFrom('transactions').select(['record', 'version']).where('id', '=', id).executeTakeFirst()),
    async findMany(ids) {
      if (ids.length === 0) return [];
      const rows = await q.selectFrom('transactions').select(['record', 'version']).where('id', 'in', ids).execute();
      return rows.map((row) => stored(row)!);
    },
    updateMany: (changes) => updateMany(q, changes, counts, seen),
    async update(record, previousStatus, expectedVersion) {
      const moved = previousStatus !== record.status;
      // The indexed nonce follows the record's (an EVM transaction given a new nonce).
      const nonce = typeof record.nonce === 'number' ? record.nonce : null;
      const update = sql`
        UPDATE transactions SET status = ${record.status}, nonce = ${nonce}::bigint, record = ${JSON.stringify(record)}, version = version + 1
        WHERE id = ${record.id} AND version = ${expectedVersion} RETURNING relayer_id`;
      if (counts) {
        const rows = (
          await sql<{
            relayer_id: string;
            notification_id: string | null;
          }>`${update}, ${NOTIFICATION_OF_ROW('transactions')}`.execute(q)
        ).rows;
        const updated = rows.length === 1;
        if (updated) seen?.(rows[0]!.relayer_id, rows[0]!.notification_id);
        // Counted only when the row really moved (a stale version changes nothing).
        if (updated && moved) {
          addCount(counts, record.relayer_id, previousStatus, -1);
          addCount(counts, record.relayer_id, record.status, 1);
        }
        return updated;
      }
      if (!moved) return (await update.execute(q)).rows.length === 1;
      // Both counter rows in status order, as countsStatement() takes them.
      const result = await sql<{ n: string }>`
        WITH u AS (${update}),
        counted AS (
          INSERT INTO transaction_counts AS c (relayer_id, status, count)
          SELECT u.relayer_id, v.s, v.d FROM u, (VALUES (${previousStatus}, -1::bigint), (${record.status}, 1::bigint)) AS v(s, d) ORDER BY v.s
          ON CONFLICT (relayer_id, status) DO UPDATE SET count = c.count + excluded.count)
        SELECT COUNT(*) AS n FROM u`.execute(q);
      return Number(result.rows[0]!.n) === 1;
    },
    async listUnfinished(relayerId, limit) {
      // A lane key (domain/relayers/lanes.ts) names one lane of a pool; a relayer id, its first key's.
      const [relayer, lane] = splitLaneKey(relayerId);
      const rows = await q
        .selectFrom('transactions')
        .select(['record', 'version'])
        .where('relayer_id', '=', relayer)
        .where('lane', '=', lane)
        .where('nonce', 'is not', null)
        .where('status', 'in', ['pending', 'sent', 'submitted', 'mined'])
        .orderBy('nonce')
        .limit(limit)
        .execute();
      return rows.map((row) => stored(row)!);
    },
    getByNonce: async (relayerId, nonce) => {
      const [relayer, lane] = splitLaneKey(relayerId);
      return stored(
        await q
          .selectFrom('transactions')
          .select(['record', 'version'])
          .where('relayer_id', '=', relayer)
          .where('lane', '=', lane)
          .where('nonce', '=', nonce)
          .executeTakeFirst(),
      );
    },
    async list(relayerId, status, limit, offset) {
      let query = q.selectFrom('transactions').select('record').where('relayer_id', '=', relayerId);
      if (status !== undefined) query = query.where('status', '=', status);
      const rows = await query
        .orderBy('created_ms', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((r) => JSON.parse(r.record) as TransactionRecord);
    },
    async count(relayerId, status) {
      let query = q
        .selectFrom('transaction_counts')
        .select(sql<number>`COALESCE(SUM(count), 0)::int`.as('n'))
        .where('relayer_id', '=', relayerId);
      if (status !== undefined) query = query.where('status', '=', status);
      return (await query.executeTakeFirstOrThrow()).n;
    },
    async funds(relayerId) {
      const row = (
        await sql<{
          reserved: string;
          released: string;
        }>`SELECT reserved::text, released::text FROM relayer_funds WHERE relayer_id = ${relayerId}`.execute(q)
      ).rows[0];
      return { reserved: BigInt(row?.reserved ?? 0), released: BigInt(row?.released ?? 0) };
    },
    // NUMERIC arithmetic in one statement, exact. In a transaction the move is held for its commit: the ledger row is
    // then locked last and only for the commit, so a send and a status change on two instances never deadlock on it.
    async moveFunds(relayerId, reserved, released) {
      if (heldFunds) return heldFunds(relayerId, reserved, released);
      await sql`
        INSERT INTO relayer_funds AS f (relayer_id, reserved, released) VALUES (${relayerId}, ${reserved.toString()}::numeric, ${released.toString()}::numeric)
        ON CONFLICT (relayer_id) DO UPDATE SET reserved = f.reserved + excluded.reserved, released = f.released + excluded.released`.execute(
        q,
      );
    },
    async history(id) {
      // Written by the migration's trigger (010-transaction-history.sql); BIGINT ms arrive as numbers (db.ts).
      const rows = (
        await sql<{
          version: number;
          at_ms: number;
          record: string;
        }>`SELECT version, at_ms, record FROM transaction_history WHERE transaction_id = ${id} ORDER BY version`.execute(
          q,
        )
      ).rows;
      return rows.map((row) => ({
        version: row.version,
        at_ms: Number(row.at_ms),
        record: JSON.parse(row.record) as TransactionRecord,
      }));
    },
  };
}

type Change = Parameters<TransactionsRepo['updateMany']>[0][number];

/**
 * Every change in one UPDATE (one round trip for a batch of broadcasts marked submitted), each row written only if it
 * is still at its expected version. Counter changes as update(): collected in a transaction, else one by one.
 */
async function updateMany(
  q: Kysely<Database>,
  changes: readonly Change[],
  counts?: CountChanges,
  seen?: NotificationSeen,
): Promise<boolean[]> {
  if (!counts || changes.length <= 1) {
    const repo = createTransactionsRepo(q, counts, seen);
    const out: boolean[] = [];
    for (const c of changes) out.push(await repo.update(c.record, c.previousStatus, c.expectedVersion));
    return out;
  }
  const values = sql.join(
    changes.map(({ record, expectedVersion }) => {
      const nonce = typeof record.nonce === 'number' ? record.nonce : null;
      return sql`(${record.id}, ${expectedVersion}::integer, ${record.status}, ${nonce}::bigint, ${JSON.stringify(record)})`;
    }),
  );
  const result = await sql<{ id: string; relayer_id: string; notification_id: string | null }>`
    UPDATE transactions AS t SET status = v.status, nonce = v.nonce, record = v.record, version = t.version + 1
    FROM (VALUES ${values}) AS v(id, version, status, nonce, record)
    WHERE t.id = v.id AND t.version = v.version RETURNING t.id, t.relayer_id, ${NOTIFICATION_OF_ROW('t')}`.execute(q);
  for (const row of result.rows) seen?.(row.relayer_id, row.notification_id);
  const written = new Set(result.rows.map((r) => r.id));
  return changes.map(({ record, previousStatus }) => {
    const updated = written.has(record.id);
    if (updated && previousStatus !== record.status) {
      addCount(counts, record.relayer_id, previousStatus, -1);
      addCount(counts, record.relayer_id, record.status, 1);
    }
    return updated;
  });
}
