// One webhook delivery attempt: sign the event for its notification, POST it with a timeout, and record the outcome
// (delivered, retried with backoff, or failed for good). The dispatcher decides when; this decides what happens.
import type { WebhookSettings } from '../../config/config.ts';
import type { NotificationsRepo, WebhookEventRow, WebhookEventsRepo } from '../notifications/ports.ts';
import type { Log } from '../log.ts';
import type { SecretBox } from '../secret-box.ts';
import { backoffDelay } from '../backoff.ts';
import { sign } from './signature.ts';

const USER_AGENT = 'relaybox-webhooks/1';

/** Told about every finished attempt (metrics); plain callbacks keep the domain free of a metrics library. */
export interface DeliveryObserver {
  /**
   * `retry`: failed, will be tried again; `failed`: given up. `seconds` is the attempt's own duration,
   * `ageSeconds` the time since the event was recorded.
   */
  attempt(outcome: 'delivered' | 'retry' | 'failed', seconds: number, ageSeconds: number): void;
}

export interface DeliveryDeps {
  events: WebhookEventsRepo;
  notifications: NotificationsRepo;
  secrets: SecretBox;
  settings: WebhookSettings;
  logger: Log;
  observer?: DeliveryObserver;
  /**
   * The fetch for a notification's URL: a guarded one (re-checked at every connect) for a URL given through the API,
   * undefined (the global fetch) for the config file's. Unset: the global fetch for every URL.
   */
  fetchFor?: (url: string) => typeof fetch | undefined;
}

/** `shutdown` aborts attempts in flight: such an attempt does not count, and its event stays as it was. */
export function createDelivery(deps: DeliveryDeps, shutdown: AbortSignal): (row: WebhookEventRow) => Promise<void> {
  const { events, notifications, secrets, settings, logger, observer } = deps;

  const observe = (row: WebhookEventRow, outcome: 'delivered' | 'retry' | 'failed', startedAt: number) => {
    const now = Date.now();
    observer?.attempt(outcome, (now - startedAt) / 1000, Math.max(0, now - Date.parse(row.created_at)) / 1000);
  };

  async function deliver(row: WebhookEventRow): Promise<void> {
    const startedAt = Date.now();
    const attempts = row.attempts + 1;
    const target = await notifications.get(row.notification_id);
    if (!target) {
      await events.markFailed(row.seq, row.attempts, 'notification deleted', new Date().toISOString());
      observe(row, 'failed', startedAt);
      logger.warn(
        { eventId: row.id, notificationId: row.notification_id, transactionId: row.transaction_id },
        'webhook event dropped: its notification was deleted',
      );
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-webhook-id': row.id,
      'x-webhook-timestamp': new Date().toISOString(),
    };
    if (target.signing_key) {
      let key: string;
      try {
        key = secrets.open(target.signing_key, target.id);
      } catch (err) {
        logger.error(
          { eventId: row.id, notificationId: target.id, reason: (err as Error).message },
          'webhook not sent: signing key unavailable',
        );
        return await failed(row, attempts, (err as Error).message, startedAt);
      }
      headers['x-signature'] = sign(key, row.body);
    }
    // The reference's example config has a notification with an empty URL: its events wait, retried, for one to be set.
    if (target.url === '')
      return await failed(
        row,
        attempts,
        'the notification has no URL; set one with PATCH /api/v1/notifications/{id}',
        startedAt,
      );
    let outcome: string | undefined;
    const attempt = attemptSignal(settings.timeoutMs, shutdown);
    try {
      // Redirects are never followed (a 3xx is a failed delivery): a public receiver must not steer us inward.
      const post = deps.fetchFor?.(target.url) ?? fetch;
      const res = await post(target.url, {
        method: 'POST',
        headers,
        body: row.body,
        redirect: 'manual',
        signal: attempt.signal,
      });
      await drain(res);
      if (res.status < 200 || res.status > 299) outcome = `receiver answered HTTP ${res.status}`;
    } catch (err) {
      // Shutdown: the attempt does not count; the event stays as it was and resumes after restart.
      if (shutdown.aborted) return;
      outcome = describeFetchError(err, settings.timeoutMs);
    } finally {
      attempt.done();
    }
    const now = new Date().toISOString();
    if (outcome === undefined) {
      await events.markDelivered(row.seq, attempts, now);
      observe(row, 'delivered', startedAt);
      logger.debug({ eventId: row.id, notificationId: target.id, attempts }, 'webhook delivered');
      return;
    }
    await failed(row, attempts, outcome, startedAt);
  }

  async function failed(row: WebhookEventRow, attempts: number, reason: string, startedAt: number): Promise<void> {
    const now = new Date();
    if (attempts >= settings.maxAttempts) {
      await events.markFailed(row.seq, attempts, reason, now.toISOString());
      observe(row, 'failed', startedAt);
      logger.warn(
        { eventId: row.id, notificationId: row.notification_id, attempts, reason },
        'webhook delivery failed for good',
      );
      return;
    }
    const delay = backoffDelay({ baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs }, attempts);
    await events.markRetry(row.seq, attempts, reason, now.getTime() + delay, now.toISOString());
    observe(row, 'retry', startedAt);
    logger.info(
      { eventId: row.id, notificationId: row.notification_id, attempts, reason, retryInMs: delay },
      'webhook delivery failed; will retry',
    );
  }

  return deliver;
}

/**
 * Aborts on timeout or on shutdown, and lets go of both the moment the attempt ends. AbortSignal.timeout() would
 * keep its timer and signal alive for the whole timeout after a refused connection, and AbortSignal.any() ties
 * each to the long-lived shutdown signal: measured, ~20,000 of each live under a send burst to a dead receiver.
 */
function attemptSignal(timeoutMs: number, shutdown: AbortSignal): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const stop = () => controller.abort(shutdown.reason);
  shutdown.addEventListener('abort', stop, { once: true });
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', stop);
    },
  };
}

/** Reads (and drops) up to 64 KiB of the answer so the connection can be reused, then lets go. */
async function drain(res: Response): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let read = 0;
  try {
    while (read < 65_536) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The status is all that counts; a broken body does not change it.
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = e.cause?.code ?? e.cause?.message;
  return `connection error: ${cause ?? e.message ?? String(err)}`;
}
