// STUB (owned by the webhooks work): delivers outbox events to webhooks.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../store/db.ts';

export interface WebhookDispatcher {
  start(): void;
  close(): Promise<void>;
}

export function createWebhookDispatcher(_deps: { db: Db; config: Config; logger: Logger }): WebhookDispatcher {
  return { start() {}, async close() {} };
}
