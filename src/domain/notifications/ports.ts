// What the notification and webhook use cases need from the store and the logger (implemented in src/store/).

/** A notification row as stored: `signing_key` may be sealed (`enc:v1:...`). */
export interface NotificationRow {
  id: string;
  type: 'webhook';
  url: string;
  signing_key: string | null;
  seed_hash: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An outbox row as stored. `next_attempt_at` is Unix milliseconds. */
export interface WebhookEventRow {
  seq: number;
  id: string;
  notification_id: string;
  event: string;
  transaction_id: string | null;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  next_attempt_at: number;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** The notifications table. */
export interface NotificationsRepo {
  /** Inserts unless the id exists; false when it does (check and insert are one statement). */
  insertIfAbsent(row: NotificationRow): Promise<boolean>;
  get(id: string): Promise<NotificationRow | undefined>;
  /** Newest first. */
  list(limit: number, offset: number): Promise<NotificationRow[]>;
  count(): Promise<number>;
  /** Changes the given fields atomically; undefined when there is no such row. */
  update(
    id: string,
    fields: { url?: string; signing_key?: string | null; seed_hash?: string | null },
    now: string,
  ): Promise<NotificationRow | undefined>;
  /**
   * Deletes unless an active relayer points at it: `{ deleted }`, or the ids of the relayers in the way.
   * Check and delete are atomic, so no relayer can be pointed at it in between.
   */
  deleteIfUnused(id: string): Promise<{ deleted: boolean; usedBy: string[] }>;
  /** Every row, oldest first. */
  all(): Promise<NotificationRow[]>;
}

/**
 * The outbox table. `notificationOfRelayer` and `insert` are called through a transaction's
 * repositories, with the state change they report (transactional outbox).
 */
export interface WebhookEventsRepo {
  /** The relayer's notification id, or null (no relayer, or none set). */
  notificationOfRelayer(relayerId: string): Promise<string | null>;
  insert(row: Omit<WebhookEventRow, 'seq'>): Promise<void>;
  /**
   * Pending events due at `now`, oldest first, leaving out any whose transaction has an earlier
   * pending event (per-transaction order) and any whose seq is in `exclude` (in flight).
   */
  due(now: number, limit: number, exclude: ReadonlySet<number>): Promise<WebhookEventRow[]>;
  /** Earliest `next_attempt_at` among pending events, or null. */
  nextDueAt(): Promise<number | null>;
  markDelivered(seq: number, attempts: number, now: string): Promise<void>;
  markRetry(seq: number, attempts: number, error: string, nextAttemptAt: number, now: string): Promise<void>;
  markFailed(seq: number, attempts: number, error: string, now: string): Promise<void>;
  /** Newest first (seq descending). */
  listByNotification(notificationId: string, limit: number, offset: number): Promise<WebhookEventRow[]>;
  countByNotification(notificationId: string): Promise<number>;
  /** The events written for one transaction, oldest first, at most `limit` (its timeline). */
  listByTransaction(transactionId: string, limit: number): Promise<WebhookEventRow[]>;
  get(notificationId: string, eventId: string): Promise<WebhookEventRow | undefined>;
  /** Failed → pending, attempts reset, due at `nextAttemptAt`. False when it was not failed. */
  requeue(seq: number, nextAttemptAt: number, now: string): Promise<boolean>;
}

/** In-process doorbell: the outbox rings it after its transaction commits, the dispatcher answers. */
export interface WakeSignal {
  notify(): void;
  subscribe(listener: () => void): () => void;
}
