// Inside one transaction, the inserts that answer nothing (transaction records, outbox events) are held and sent
// together as multi-row statements: before the transaction's next statement, or before its commit. A batch of sends
// then costs a few round trips instead of two per send. An error in a held insert rejects the next statement, or
// atomically() itself: either way the transaction rolls back whole.
import { sql, type Kysely } from 'kysely';
import type { WebhookEventRow } from '../../domain/notifications/ports.ts';
import type { TransactionRecord } from '../../domain/types.ts';
import type { Database } from './schema.ts';
import { OUTBOX_CHANNEL } from './channels.ts';

export interface HeldTransaction {
  record: TransactionRecord;
  createdMs: number;
  nonce: number | null;
}

export interface WriteBuffer {
  transaction(held: HeldTransaction): void;
  event(row: Omit<WebhookEventRow, 'seq'>): void;
  /** Sends what is held; resolves once it is written (at once when nothing is held). */
  flush(): Promise<void>;
}

/** Records and their per-status counters in one statement (data-modifying CTE). */
export async function insertTransactions(q: Kysely<Database>, rows: readonly HeldTransaction[]): Promise<void> {
  const values = sql.join(rows.map(({ record, createdMs, nonce }) => sql`(${record.id}, ${record.relayer_id}, ${record.status}, ${createdMs}::bigint, ${nonce}::bigint, 1, ${JSON.stringify(record)})`));
  await sql`
    WITH ins AS (
      INSERT INTO transactions (id, relayer_id, status, created_ms, nonce, version, record) VALUES ${values}
      RETURNING relayer_id, status)
    INSERT INTO transaction_counts AS c (relayer_id, status, count) SELECT relayer_id, status, COUNT(*) FROM ins GROUP BY relayer_id, status
    ON CONFLICT (relayer_id, status) DO UPDATE SET count = c.count + excluded.count`.execute(q);
}

/** Outbox rows in one statement, in the order given (seq follows it); the NOTIFY goes out with the commit. */
export async function insertEvents(q: Kysely<Database>, rows: ReadonlyArray<Omit<WebhookEventRow, 'seq'>>, instance: string): Promise<void> {
  await q.insertInto('webhook_events').values([...rows]).returning(sql`pg_notify(${OUTBOX_CHANNEL}, ${instance})`.as('n')).execute();
}

export function createWriteBuffer(q: Kysely<Database>, instance: string): WriteBuffer {
  let transactions: HeldTransaction[] = [];
  let events: Array<Omit<WebhookEventRow, 'seq'>> = [];
  let flushing: Promise<void> | undefined;

  async function write(): Promise<void> {
    while (transactions.length > 0 || events.length > 0) {
      const t = transactions;
      const e = events;
      transactions = [];
      events = [];
      if (t.length > 0) await insertTransactions(q, t);
      if (e.length > 0) await insertEvents(q, e, instance);
    }
  }

  return {
    transaction: (held) => void transactions.push(held),
    event: (row) => void events.push(row),
    async flush() {
      // Statements issued at the same time wait for the one write in progress, so each reads what was written.
      while (flushing) await flushing;
      if (transactions.length === 0 && events.length === 0) return;
      flushing = write().finally(() => (flushing = undefined));
      await flushing;
    },
  };
}
