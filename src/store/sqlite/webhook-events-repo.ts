// Repository for the webhook outbox: written inside transaction changes, read by the dispatcher.
import type { Db } from './db.ts';
import type { WebhookEventRow, WebhookEventsRepo } from '../../domain/notifications/ports.ts';
import type { SyncOf } from './sync-ops.ts';

const COLUMNS =
  'seq, id, notification_id, event, transaction_id, body, status, attempts, last_error, next_attempt_at, created_at, updated_at, delivered_at';

/** Builds the repository; every statement is prepared here, once. */
export function createWebhookEventsRepo(db: Db): SyncOf<WebhookEventsRepo> {
  const relayerNotification = db.prepare('SELECT notification_id FROM relayers WHERE id = ?').pluck();
  const insert = db.prepare(
    `INSERT INTO webhook_events (id, notification_id, event, transaction_id, body, status, attempts, last_error, next_attempt_at, created_at, updated_at, delivered_at)
     VALUES (@id, @notification_id, @event, @transaction_id, @body, @status, @attempts, @last_error, @next_attempt_at, @created_at, @updated_at, @delivered_at)`,
  );
  // Per-transaction order: an event waits while an earlier one of its transaction is still pending.
  const due = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_events e
     WHERE e.status = 'pending' AND e.next_attempt_at <= ?
       AND NOT EXISTS (
         SELECT 1 FROM webhook_events p
         WHERE p.status = 'pending' AND p.transaction_id = e.transaction_id AND p.seq < e.seq)
     ORDER BY e.next_attempt_at, e.seq LIMIT ?`,
  );
  const nextDue = db.prepare("SELECT MIN(next_attempt_at) FROM webhook_events WHERE status = 'pending'").pluck();
  const delivered = db.prepare(
    "UPDATE webhook_events SET status = 'delivered', attempts = ?, delivered_at = ?, updated_at = ? WHERE seq = ?",
  );
  const retry = db.prepare(
    'UPDATE webhook_events SET attempts = ?, last_error = ?, next_attempt_at = ?, updated_at = ? WHERE seq = ?',
  );
  const failed = db.prepare(
    "UPDATE webhook_events SET status = 'failed', attempts = ?, last_error = ?, updated_at = ? WHERE seq = ?",
  );
  const listPage = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_events WHERE notification_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?`,
  );
  const count = db.prepare('SELECT COUNT(*) FROM webhook_events WHERE notification_id = ?').pluck();
  const byTransaction = db.prepare(
    `SELECT ${COLUMNS} FROM webhook_events WHERE transaction_id = ? ORDER BY seq LIMIT ?`,
  );
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM webhook_events WHERE notification_id = ? AND id = ?`);
  const requeue = db.prepare(
    "UPDATE webhook_events SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE seq = ? AND status = 'failed'",
  );

  return {
    notificationOfRelayer: (relayerId) => (relayerNotification.get(relayerId) as string | null | undefined) ?? null,
    insert: (row) => {
      insert.run(row);
    },
    due: (now, limit, exclude) => {
      // In-flight rows are still pending; fetch enough to fill `limit` after leaving them out.
      const rows = due.all(now, limit + exclude.size) as WebhookEventRow[];
      return rows.filter((r) => !exclude.has(r.seq)).slice(0, limit);
    },
    nextDueAt: () => (nextDue.get() as number | null) ?? null,
    markDelivered: (seq, attempts, now) => {
      delivered.run(attempts, now, now, seq);
    },
    markRetry: (seq, attempts, error, nextAttemptAt, now) => {
      retry.run(attempts, error, nextAttemptAt, now, seq);
    },
    markFailed: (seq, attempts, error, now) => {
      failed.run(attempts, error, now, seq);
    },
    listByNotification: (id, limit, offset) => listPage.all(id, limit, offset) as WebhookEventRow[],
    countByNotification: (id) => count.get(id) as number,
    listByTransaction: (transactionId, limit) => byTransaction.all(transactionId, limit) as WebhookEventRow[],
    get: (notificationId, eventId) => getOne.get(notificationId, eventId) as WebhookEventRow | undefined,
    requeue: (seq, nextAttemptAt, now) => requeue.run(nextAttemptAt, now, seq).changes > 0,
  };
}
