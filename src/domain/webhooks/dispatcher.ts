// Delivers outbox events to their webhooks: bounded concurrency, retries with backoff, per-transaction order.
import type { WakeSignal } from '../notifications/ports.ts';
import { createDelivery, type DeliveryDeps } from './delivery.ts';

export interface WebhookDispatcher {
  start(): void;
  /** Stops polling, aborts in-flight requests (they stay pending, unchanged) and waits for them. */
  close(): Promise<void>;
}

export interface DispatcherDeps extends DeliveryDeps {
  signal: WakeSignal;
}

export function createWebhookDispatcher(deps: DispatcherDeps): WebhookDispatcher {
  const { events, settings, logger, signal } = deps;
  const inFlight = new Map<number, Promise<void>>();
  const shutdown = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let unsubscribe: (() => void) | undefined;
  // One fill at a time: two would read the same due rows (the in-flight set is filled after the read).
  let filling: Promise<void> | undefined;
  let refill = false;
  const deliver = createDelivery(deps, shutdown.signal);

  const schedule = (delayMs: number) => {
    if (shutdown.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, delayMs));
    timer.unref();
  };

  function tick() {
    if (shutdown.signal.aborted) return;
    if (filling) {
      refill = true;
      return;
    }
    filling = fill()
      .catch((err: unknown) => {
        // A store error (busy, disk full) must not take the process down from a timer: try again later.
        logger.error({ err }, 'webhook dispatcher could not read the outbox');
        schedule(settings.pollIntervalMs);
      })
      .finally(() => {
        filling = undefined;
        if (refill) {
          refill = false;
          schedule(0);
        }
      });
  }

  async function fill() {
    const now = Date.now();
    const free = settings.concurrency - inFlight.size;
    if (free > 0) {
      for (const row of await events.due(now, free, new Set(inFlight.keys()))) {
        if (shutdown.signal.aborted) return;
        const run = deliver(row)
          .catch((err: unknown) => logger.error({ err, eventId: row.id }, 'webhook delivery crashed'))
          .finally(() => {
            inFlight.delete(row.seq);
            schedule(0);
          });
        inFlight.set(row.seq, run);
      }
    }
    // Sleep until the next retry falls due, but never longer than the poll interval.
    const next = await events.nextDueAt();
    if (shutdown.signal.aborted) return;
    schedule(next === null ? settings.pollIntervalMs : Math.min(settings.pollIntervalMs, Math.max(next - now, 5)));
  }

  return {
    start() {
      if (started) return;
      started = true;
      unsubscribe = signal.subscribe(() => schedule(0));
      schedule(0);
    },
    async close() {
      shutdown.abort();
      clearTimeout(timer);
      unsubscribe?.();
      await filling;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
