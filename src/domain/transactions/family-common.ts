// What the Solana and Stellar families share: the pending-only rule of replace and cancel, and resuming at start.
import { ValidationError } from '../../errors.ts';
import type { Store } from '../ports.ts';
import type { StoredTransaction } from '../relayers/ports.ts';
import type { TransactionRecord } from '../types.ts';

/** Replace and cancel apply only before the relayer signs and sends (`what`: e.g. 'transactions can be canceled'). */
export function onlyPending(stored: StoredTransaction, what: string): void {
  const { record } = stored;
  if (record.status !== 'pending')
    throw new ValidationError(`transaction '${record.id}' is ${record.status}; only pending ${what}`);
}

/** Schedules the job of every non-final transaction of the family's relayers (an existing job keeps its earlier due time). */
export async function resumeInFlight(
  store: Pick<Store, 'repos'>,
  type: 'solana' | 'stellar',
  schedule: (id: string, relayerId: string, record: TransactionRecord) => Promise<void>,
): Promise<number> {
  const { relayers, transactions } = store.repos;
  let scheduled = 0;
  const all = await relayers.list(10_000, 0);
  for (const relayer of all.filter((r) => r.network_type === type)) {
    for (const status of ['pending', 'sent', 'submitted', 'mined'] as const) {
      const count = await transactions.count(relayer.id, status);
      for (let offset = 0; offset < count; offset += 100) {
        for (const record of await transactions.list(relayer.id, status, 100, offset))
          await schedule(record.id, relayer.id, record);
      }
      scheduled += count;
    }
  }
  return scheduled;
}
