// PostgreSQL repository for the webhook outbox. `due` leases what it hands out (FOR UPDATE SKIP LOCKED), so one
// instance at a time delivers an event; an instance that dies leaves leases that expire and are claimed again.
import { sql, type Kysely } from 'kysely';
import type { WebhookEventRow, WebhookEventsRepo } from '../../domain/notifications/ports.ts';
import type { Database } from './schema.ts';
import { insertEvents } from './write-buffer.ts';

const COLUMNS = [
  'seq',
  'id',
  'notification_id',
  'event',
  'transaction_id',
  'body',
  'status',
  'attempts',
  'last_error',
  'next_attempt_at',
  'created_at',
  'updated_at',
  'delivered_at',
] as const;
const RETURNED = sql.raw(COLUMNS.join(', '));

export interface OutboxLease {
  /** This instance: its leases are its own to hand out again (the dispatcher excludes what it has in flight). */
  owner: string;
  /** Longer than one delivery attempt (the webhook timeout), so a live holder keeps its events. */
  leaseMs: number;
}

const free = (owner: string, now: number) =>
  sql<boolean>`(e.lease_owner IS NULL OR e.lease_owner = ${owner} OR e.lease_expires_at <= ${now})`;
// Per-transaction order across instances: an earlier event of the transaction pending anywhere (due, waiting, in flight) holds it back.
const first = sql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_events p WHERE p.status = 'pending' AND p.transaction_id = e.transaction_id AND p.seq < e.seq)`;

export function createWebhookEventsRepo(q: Kysely<Database>, lease: OutboxLease): WebhookEventsRepo {
  const settle = (seq: number) => q.updateTable('webhook_events').where('seq', '=', seq);
  return {
    async notificationOfRelayer(relayerId) {
      const row = await q
        .selectFrom('relayers')
        .select('notification_id')
        .where('id', '=', relayerId)
        .executeTakeFirst();
      return row?.notification_id ?? null;
    },
    // The NOTIFY is part of the writing transaction: dispatchers everywhere wake when (and only if) it commits.
    insert: (row) => insertEvents(q, [row], lease.owner),
    async due(now, limit, exclude) {
      if (limit <= 0) return [];
      const { rows } = await sql<WebhookEventRow>`
        UPDATE webhook_events SET lease_owner = ${lease.owner}, lease_expires_at = ${now + lease.leaseMs}
        WHERE seq IN (
          SELECT seq FROM webhook_events e
          WHERE e.status = 'pending' AND e.next_attempt_at <= ${now} AND ${free(lease.owner, now)}
            AND NOT (e.seq = ANY(${[...exclude]}::bigint[])) AND ${first}
          ORDER BY e.next_attempt_at, e.seq LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING ${RETURNED}`.execute(q);
      return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.seq - b.seq);
    },
    async nextDueAt() {
      // A leased event (in flight here or elsewhere) is not due again before its lease runs out, and its successors
      // wait for it: no busy polling while deliveries are in flight. Finished deliveries wake the dispatcher anyway.
      const now = Date.now();
      const { rows } = await sql<{ at: number | null }>`
        SELECT MIN(CASE WHEN e.lease_owner IS NOT NULL AND e.lease_expires_at > ${now}
                        THEN GREATEST(e.next_attempt_at, e.lease_expires_at) ELSE e.next_attempt_at END) AS at
        FROM webhook_events e WHERE e.status = 'pending' AND ${first}`.execute(q);
      return rows[0]?.at ?? null;
    },
    async markDelivered(seq, attempts, now) {
      await settle(seq)
        .set({
          status: 'delivered',
          attempts,
          delivered_at: now,
          updated_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .execute();
    },
    async markRetry(seq, attempts, error, nextAttemptAt, now) {
      await settle(seq)
        .set({
          attempts,
          last_error: error,
          next_attempt_at: nextAttemptAt,
          updated_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .execute();
    },
    async markFailed(seq, attempts, error, now) {
      await settle(seq)
        .set({
          status: 'failed',
          attempts,
          last_error: error,
          updated_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .execute();
    },
    listByNotification: (id, limit, offset) =>
      q
        .selectFrom('webhook_events')
        .select(COLUMNS)
        .where('notification_id', '=', id)
        .orderBy('seq', 'desc')
        .limit(limit)
        .offset(offset)
        .execute() as Promise<WebhookEventRow[]>,
    listByTransaction: (transactionId, limit) =>
      q
        .selectFrom('webhook_events')
        .select(COLUMNS)
        .where('transaction_id', '=', transactionId)
        .orderBy('seq')
        .limit(limit)
        .execute() as Promise<WebhookEventRow[]>,
    async countByNotification(id) {
      const row = await q
        .selectFrom('webhook_events')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('notification_id', '=', id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    get: (notificationId, eventId) =>
      q
        .selectFrom('webhook_events')
        .select(COLUMNS)
        .where('notification_id', '=', notificationId)
        .where('id', '=', eventId)
        .executeTakeFirst() as Promise<WebhookEventRow | undefined>,
    async requeue(seq, nextAttemptAt, now) {
      const r = await settle(seq)
        .where('status', '=', 'failed')
        .set({ status: 'pending', attempts: 0, next_attempt_at: nextAttemptAt, updated_at: now })
        .executeTakeFirst();
      return r.numUpdatedRows > 0n;
    },
  };
}
