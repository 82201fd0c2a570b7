// A test event for one notification (`notification_test`): the transaction_update envelope with its own payload,
// queued in the outbox like any event, so it takes the real path (signature, URL guard, retries, the delivery log).
import { randomUUID } from 'node:crypto';
import type { WebhookEventRow } from '../notifications/ports.ts';

export const NOTIFICATION_TEST = 'notification_test';

export function testEventRow(notificationId: string, now = new Date()): Omit<WebhookEventRow, 'seq'> {
  const id = randomUUID();
  const timestamp = now.toISOString();
  const body = JSON.stringify({
    id,
    event: NOTIFICATION_TEST,
    timestamp,
    payload: {
      payload_type: NOTIFICATION_TEST,
      notification_id: notificationId,
      message: 'a test event sent on request; nothing happened on chain',
    },
  });
  return {
    id,
    notification_id: notificationId,
    event: NOTIFICATION_TEST,
    transaction_id: null,
    body,
    status: 'pending',
    attempts: 0,
    last_error: null,
    next_attempt_at: now.getTime(),
    created_at: timestamp,
    updated_at: timestamp,
    delivered_at: null,
  };
}
