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

/** The notifications table. Every method is synchronous (SQLite, statements prepared once). */
export interface NotificationsRepo {
  /** Inserts unless the id exists; false when it does (check and insert are one statement). */
  insertIfAbsent(row: NotificationRow): boolean;
  get(id: string): NotificationRow | undefined;
  list(limit: number, offset: number): NotificationRow[];
  count(): number;
  update(id: string, fields: { url?: string; signing_key?: string | null; seed_hash?: string | null }, now: string): NotificationRow | undefined;
  /** Deletes unless a relayer points at it: `{ deleted }`, or the ids of the relayers in the way. */
  deleteIfUnused(id: string): { deleted: boolean; usedBy: string[] };
  all(): NotificationRow[];
}

/** The outbox table. */
export interface WebhookEventsRepo {
  /** The relayer's notification id, or null (no relayer, or none set). */
  notificationOfRelayer(relayerId: string): string | null;
  insert(row: Omit<WebhookEventRow, 'seq'>): void;
  /**
   * Pending events due at `now`, oldest first, leaving out any whose transaction has an earlier
   * pending event (per-transaction order) and any whose seq is in `exclude` (in flight).
   */
  due(now: number, limit: number, exclude: ReadonlySet<number>): WebhookEventRow[];
  /** Earliest `next_attempt_at` among pending events, or null. */
  nextDueAt(): number | null;
  markDelivered(seq: number, attempts: number, now: string): void;
  markRetry(seq: number, attempts: number, error: string, nextAttemptAt: number, now: string): void;
  markFailed(seq: number, attempts: number, error: string, now: string): void;
  listByNotification(notificationId: string, limit: number, offset: number): WebhookEventRow[];
  countByNotification(notificationId: string): number;
  get(notificationId: string, eventId: string): WebhookEventRow | undefined;
  /** Failed → pending, attempts reset, due at `nextAttemptAt`. False when it was not failed. */
  requeue(seq: number, nextAttemptAt: number, now: string): boolean;
}

/** The subset of pino the domain uses (pino's Logger satisfies it). */
export interface Log {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** In-process doorbell: the outbox rings it after writing, the dispatcher answers. */
export interface WakeSignal {
  notify(): void;
  subscribe(listener: () => void): () => void;
}
