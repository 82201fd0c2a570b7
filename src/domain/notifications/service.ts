// Notification use cases: create, read, change, delete, config seeding, and the delivery log of each webhook.
import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.ts';
import { AppError, ConflictError, NotFoundError } from '../../errors.ts';
import type { Page, PageRequest } from '../types.ts';
import type { NotificationRow, NotificationsRepo, WakeSignal, WebhookEventRow, WebhookEventsRepo } from './ports.ts';
import type { Log } from '../log.ts';
import type { SecretBox } from '../secret-box.ts';
import { testEventRow } from '../webhooks/test-event.ts';

/** A notification as the API returns it: never the key, only whether there is one. */
export interface NotificationView {
  id: string;
  type: 'webhook';
  url: string;
  has_signing_key: boolean;
}

/** One webhook event as the deliveries log shows it. */
export interface DeliveryView {
  id: string;
  event: string;
  transaction_id: string | null;
  status: WebhookEventRow['status'];
  attempts: number;
  last_error: string | null;
  /** RFC 3339; null once delivered or failed. */
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface CreateNotificationInput {
  id?: string;
  type?: 'webhook';
  url: string;
  signing_key?: string;
}

export interface UpdateNotificationInput {
  url?: string;
  /** An empty string removes the key. */
  signing_key?: string;
}

export interface NotificationService {
  create(input: CreateNotificationInput): Promise<NotificationView>;
  list(query: PageRequest): Promise<Page<NotificationView>>;
  get(id: string): Promise<NotificationView>;
  update(id: string, input: UpdateNotificationInput): Promise<NotificationView>;
  /** Refused (400) while a relayer points at it. Returns the deleted record. */
  remove(id: string): Promise<NotificationView>;
  listDeliveries(id: string, query: PageRequest): Promise<Page<DeliveryView>>;
  /** Re-queues a failed delivery with a fresh set of attempts. */
  retryDelivery(id: string, eventId: string): Promise<DeliveryView>;
  /** Queues a `notification_test` event for it: delivered like any event, and shown in its delivery log. */
  sendTest(id: string): Promise<DeliveryView>;
}

export interface NotificationServiceDeps {
  notifications: NotificationsRepo;
  events: WebhookEventsRepo;
  secrets: SecretBox;
  config: Config;
  logger: Log;
  signal: WakeSignal;
}

function toView(row: NotificationRow): NotificationView {
  return { id: row.id, type: row.type, url: row.url, has_signing_key: row.signing_key !== null };
}

export function toDeliveryView(row: WebhookEventRow): DeliveryView {
  return {
    id: row.id,
    event: row.event,
    transaction_id: row.transaction_id,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? new Date(row.next_attempt_at).toISOString() : null,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

const notFound = (id: string) =>
  new NotFoundError('NOTIFICATION_NOT_FOUND', { reason: `notification '${id}' not found` });

/** Builds the service and seeds the notifications of the config file (see seedFromConfig). */
export async function createNotificationService(deps: NotificationServiceDeps): Promise<NotificationService> {
  const { notifications, events, secrets, logger, signal } = deps;
  const seal = (key: string | undefined | null, id: string) => (key ? secrets.seal(key, id) : null);
  const existing = async (id: string) => {
    const row = await notifications.get(id);
    if (!row) throw notFound(id);
    return row;
  };

  await seedFromConfig(deps);

  return {
    async create(input) {
      const id = input.id ?? randomUUID();
      const now = new Date().toISOString();
      const inserted = await notifications.insertIfAbsent({
        id,
        type: 'webhook',
        url: input.url,
        signing_key: seal(input.signing_key, id),
        seed_hash: null,
        created_at: now,
        updated_at: now,
      });
      if (!inserted)
        throw new ConflictError('NOTIFICATION_EXISTS', { reason: `a notification with id '${id}' already exists` });
      logger.info({ notificationId: id, hasSigningKey: input.signing_key !== undefined }, 'notification created');
      return toView(await existing(id));
    },
    async list({ page, per_page }) {
      const [rows, total] = await Promise.all([
        notifications.list(per_page, (page - 1) * per_page),
        notifications.count(),
      ]);
      return { items: rows.map(toView), pagination: { current_page: page, per_page, total_items: total } };
    },
    get: async (id) => toView(await existing(id)),
    async update(id, input) {
      const fields: { url?: string; signing_key?: string | null } = {};
      if (input.url !== undefined) fields.url = input.url;
      if (input.signing_key !== undefined) fields.signing_key = seal(input.signing_key, id);
      const row = await notifications.update(id, fields, new Date().toISOString());
      if (!row) throw notFound(id);
      logger.info({ notificationId: id, changed: Object.keys(fields) }, 'notification updated');
      return toView(row);
    },
    async remove(id) {
      const row = await existing(id);
      const { deleted, usedBy } = await notifications.deleteIfUnused(id);
      if (usedBy.length > 0) {
        throw new AppError('BAD_REQUEST', {
          reason: `notification '${id}' is used by relayer(s) ${usedBy.join(', ')}; set their notification_id to another notification or null first`,
        });
      }
      if (!deleted) throw notFound(id);
      logger.info({ notificationId: id }, 'notification deleted');
      return toView(row);
    },
    async listDeliveries(id, { page, per_page }) {
      await existing(id);
      const [rows, total] = await Promise.all([
        events.listByNotification(id, per_page, (page - 1) * per_page),
        events.countByNotification(id),
      ]);
      return { items: rows.map(toDeliveryView), pagination: { current_page: page, per_page, total_items: total } };
    },
    async retryDelivery(id, eventId) {
      await existing(id);
      const event = await events.get(id, eventId);
      if (!event)
        throw new NotFoundError('NOT_FOUND', { reason: `delivery '${eventId}' of notification '${id}' not found` });
      if (!(await events.requeue(event.seq, Date.now(), new Date().toISOString()))) {
        throw new AppError('BAD_REQUEST', {
          reason: `delivery '${eventId}' is ${event.status}; only failed deliveries can be retried`,
        });
      }
      logger.info({ notificationId: id, eventId }, 'webhook delivery re-queued');
      signal.notify();
      return toDeliveryView((await events.get(id, eventId))!);
    },
    async sendTest(id) {
      await existing(id);
      const row = testEventRow(id);
      await events.insert(row);
      logger.info({ notificationId: id, eventId: row.id }, 'webhook test event queued');
      signal.notify();
      return toDeliveryView((await events.get(id, row.id))!);
    },
  };
}

/**
 * Config-file notifications: inserted when absent; overwritten only when their config entry changed
 * since it last wrote the row (a fingerprint is kept), so API edits survive restarts until the file
 * is edited. Also reports sealed keys that cannot be opened because STORAGE_ENCRYPTION_KEY is missing.
 */
async function seedFromConfig({ notifications, secrets, config, logger }: NotificationServiceDeps): Promise<void> {
  const now = new Date().toISOString();
  for (const entry of config.file.notifications) {
    const seedHash = createHash('sha256')
      .update(JSON.stringify([entry.url, entry.signing_key ?? null]))
      .digest('hex');
    const signingKey = entry.signing_key ? secrets.seal(entry.signing_key, entry.id) : null;
    const row = await notifications.get(entry.id);
    if (!row) {
      await notifications.insertIfAbsent({
        id: entry.id,
        type: 'webhook',
        url: entry.url,
        signing_key: signingKey,
        seed_hash: seedHash,
        created_at: now,
        updated_at: now,
      });
      logger.info({ notificationId: entry.id }, 'notification seeded from the config file');
    } else if (row.seed_hash !== seedHash) {
      await notifications.update(entry.id, { url: entry.url, signing_key: signingKey, seed_hash: seedHash }, now);
      logger.info({ notificationId: entry.id }, 'notification updated from the changed config file');
    }
  }
  // Plain keys were sealed before this runs (secrets-at-rest.ts); what is left to say is which sealed ones cannot open.
  const locked = secrets.sealing
    ? []
    : (await notifications.all())
        .filter((row) => row.signing_key !== null && secrets.isSealed(row.signing_key))
        .map((row) => row.id);
  if (locked.length > 0) {
    logger.error(
      { notificationIds: locked },
      'signing keys are stored encrypted but STORAGE_ENCRYPTION_KEY is not set: webhooks of these notifications will not be sent until it is',
    );
  }
}
