// Inside one transaction, the inserts that answer nothing (transaction records, outbox events, job upserts) are held
// and sent together as multi-row statements: before the transaction's next statement, or before its commit. A batch
// of sends then costs a few round trips instead of two per send; its relayer's check job rides with its records.
// An error in a held statement rejects the next statement, or atomically() itself: either way the transaction rolls
// back whole.
// The per-status counters are the hottest rows (every send and every status change of a relayer touches them): their
// changes are summed over the whole transaction and applied last, in one statement, in key order. Counter locks are
// then held only for the commit and always taken in the same order, so two transactions never deadlock on them.
// The funds ledger is the same kind of row (one per relayer, touched by every send and every final status): its moves
// are summed too and applied with the counters in the commit's last statement, ledger rows first, so neither lock is
// held while a transaction waits for anything else.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { WebhookEventRow } from '../../domain/notifications/ports.ts';
import type { TransactionRecord } from '../../domain/types.ts';
import type { Database } from './schema.ts';
import { OUTBOX_CHANNEL } from './channels.ts';

export interface HeldTransaction {
  record: TransactionRecord;
  createdMs: number;
  nonce: number | null;
  /** A pool key's address ('' when absent: the relayer's first key). */
  lane?: string;
}

export interface WriteBuffer {
  transaction(held: HeldTransaction): void;
  event(row: Omit<WebhookEventRow, 'seq'>): void;
  /** A job's upsert (jobs-repo.ts scheduleStatement); held ones run in the order given. */
  job(statement: RawBuilder<unknown>): void;
  /** Counter changes of this transaction, applied by commit(). */
  counts: CountChanges;
  /**
   * A move of the relayer's funds ledger, applied by commit(). `guardNet`: the net reserve (reserved − released) the
   * caller admitted against; the commit fails as a serialization failure (retried) if it grew since.
   */
  funds(relayerId: string, reserved: bigint, released: bigint, guardNet?: bigint): void;
  /** Sends what is held; resolves once it is written (at once when nothing is held). */
  flush(): Promise<void>;
  /** Last statements before the commit: what is still held, then the ledger moves and the counters. */
  commit(): Promise<void>;
}

/** Changes of the per-status counters: `relayer\u0000status` → delta. */
export type CountChanges = Map<string, number>;

export function addCount(changes: CountChanges, relayerId: string, status: string, delta: number): void {
  const key = `${relayerId}\u0000${status}`;
  changes.set(key, (changes.get(key) ?? 0) + delta);
}

/** One upsert of every counter changed, rows taken in key order (ORDER BY: the order the locks are taken in). */
export function countsStatement(changes: CountChanges) {
  const rows = [...changes].filter(([, d]) => d !== 0);
  if (rows.length === 0) return undefined;
  const values = sql.join(
    rows.map(([key, d]) => {
      const [relayerId, status] = key.split('\u0000') as [string, string];
      return sql`(${relayerId}, ${status}, ${d}::bigint)`;
    }),
  );
  return sql`INSERT INTO transaction_counts AS c (relayer_id, status, count)
    SELECT r, s, d FROM (VALUES ${values}) AS v(r, s, d) ORDER BY r, s
    ON CONFLICT (relayer_id, status) DO UPDATE SET count = c.count + excluded.count`;
}

/**
 * Records; their counters go to `counts` when given (a transaction applies them last), else in the same statement.
 * In a transaction, `alongside` (a job's upsert, which answers nothing either) goes in the same statement.
 */
export async function insertTransactions(
  q: Kysely<Database>,
  rows: readonly HeldTransaction[],
  counts?: CountChanges,
  alongside?: RawBuilder<unknown>,
): Promise<void> {
  const values = sql.join(
    rows.map(
      ({ record, createdMs, nonce, lane }) =>
        sql`(${record.id}, ${record.relayer_id}, ${record.status}, ${createdMs}::bigint, ${nonce}::bigint, 1, ${JSON.stringify(record)}, ${lane ?? ''})`,
    ),
  );
  const insert = sql`INSERT INTO transactions (id, relayer_id, status, created_ms, nonce, version, record, lane) VALUES ${values}`;
  const changes = counts ?? new Map<string, number>();
  for (const { record } of rows) addCount(changes, record.relayer_id, record.status, 1);
  if (counts) return void (await (alongside ? sql`WITH ins AS (${insert}) ${alongside}` : insert).execute(q));
  await sql`WITH ins AS (${insert}) ${countsStatement(changes)!}`.execute(q);
}

/** Outbox rows in one statement, in the order given (seq follows it); the NOTIFY goes out with the commit. */
export async function insertEvents(
  q: Kysely<Database>,
  rows: ReadonlyArray<Omit<WebhookEventRow, 'seq'>>,
  instance: string,
): Promise<void> {
  await q
    .insertInto('webhook_events')
    .values([...rows])
    .returning(sql`pg_notify(${OUTBOX_CHANNEL}, ${instance})`.as('n'))
    .execute();
}

interface FundsMove {
  reserved: bigint;
  released: bigint;
  guardNet: bigint | undefined;
}

/**
 * The commit's last statement: the ledger moves (relayers in id order), then the counters, in one round trip. The main
 * query reads the moves, so PostgreSQL runs them first and the counters' CTE after: every transaction takes the ledger
 * rows before the counter rows, and holds neither while it waits for anything else.
 */
async function applyMoves(
  q: Kysely<Database>,
  moves: ReadonlyMap<string, FundsMove>,
  counted: RawBuilder<unknown> | undefined,
): Promise<void> {
  const ids = [...moves.keys()].sort();
  const values = sql.join(
    ids.map((id) => {
      const { reserved, released, guardNet } = moves.get(id)!;
      return sql`(${id}, ${reserved.toString()}::numeric, ${released.toString()}::numeric, ${guardNet?.toString() ?? null}::numeric)`;
    }),
  );
  const { rows } = await sql<{ moved: string }>`
    WITH v (r, reserved, released, guard) AS (VALUES ${values}),
    f AS (
      INSERT INTO relayer_funds AS f (relayer_id, reserved, released) SELECT r, reserved, released FROM v ORDER BY r
      ON CONFLICT (relayer_id) DO UPDATE SET reserved = f.reserved + excluded.reserved, released = f.released + excluded.released
      WHERE f.reserved - f.released <= COALESCE((SELECT v.guard FROM v WHERE v.r = f.relayer_id), f.reserved - f.released)
      RETURNING f.relayer_id)${counted ? sql`, c AS (${counted})` : sql``}
    SELECT count(*)::text AS moved FROM f`.execute(q);
  if (Number(rows[0]?.moved) !== ids.length)
    throw Object.assign(new Error("a relayer's funds ledger grew after its sends were admitted"), { code: '40001' });
}

export function createWriteBuffer(q: Kysely<Database>, instance: string): WriteBuffer {
  let transactions: HeldTransaction[] = [];
  let events: Array<Omit<WebhookEventRow, 'seq'>> = [];
  let jobs: Array<RawBuilder<unknown>> = [];
  let flushing: Promise<void> | undefined;
  const counts: CountChanges = new Map();
  const funds = new Map<string, FundsMove>();
  const holding = () => transactions.length > 0 || events.length > 0 || jobs.length > 0;

  async function write(): Promise<void> {
    while (holding()) {
      const t = transactions;
      const e = events;
      const j = jobs;
      transactions = [];
      events = [];
      jobs = [];
      // The first job's upsert rides with the records (a batch of sends and its relayer's check: one round trip).
      if (t.length > 0) await insertTransactions(q, t, counts, j.shift());
      for (const statement of j) await statement.execute(q);
      if (e.length > 0) await insertEvents(q, e, instance);
    }
  }

  async function flush(): Promise<void> {
    // Statements issued at the same time wait for the one write in progress, so each reads what was written.
    while (flushing) await flushing;
    if (!holding()) return;
    flushing = write().finally(() => (flushing = undefined));
    await flushing;
  }

  return {
    transaction: (held) => void transactions.push(held),
    event: (row) => void events.push(row),
    job: (statement) => void jobs.push(statement),
    counts,
    funds(relayerId, reserved, released, guardNet) {
      const m = funds.get(relayerId) ?? { reserved: 0n, released: 0n, guardNet: undefined };
      m.reserved += reserved;
      m.released += released;
      if (guardNet !== undefined && (m.guardNet === undefined || guardNet < m.guardNet)) m.guardNet = guardNet;
      funds.set(relayerId, m);
    },
    flush,
    async commit() {
      await flush();
      const statement = countsStatement(counts);
      counts.clear();
      if (funds.size > 0) await applyMoves(q, funds, statement);
      else if (statement) await statement.execute(q);
      funds.clear();
    },
  };
}
