// STUB (owned by the webhooks work): writes transaction_update events into the outbox table.
import type { Db } from '../../store/db.ts';
import type { TransactionEvents } from '../types.ts';

export function createOutbox(_deps: { db: Db }): TransactionEvents {
  return { transactionChanged() {} };
}
