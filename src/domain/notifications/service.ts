// STUB (owned by the notifications work): notification use cases.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../store/db.ts';

export type NotificationService = Record<string, never>;

export function createNotificationService(_deps: { db: Db; config: Config; logger: Logger }): NotificationService {
  return {};
}
