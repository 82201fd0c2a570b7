// What the transaction use cases need from the webhook side; src/domain/webhooks/outbox.ts implements it.
import type { Tx } from '../ports.ts';
import type { TransactionRecord } from '../types.ts';

/**
 * Records a `transaction_update` event for the relayer's webhook, if it has one, through `tx`: the
 * transaction that writes the state change (transactional outbox), so a change and its event exist
 * together or not at all. The dispatcher is woken after the commit.
 */
export interface TransactionEvents {
  transactionChanged(tx: Tx, record: TransactionRecord): Promise<void>;
}
