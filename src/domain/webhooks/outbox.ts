// Transactional outbox: turns a transaction change into a transaction_update event row, in the caller's store transaction.
import { randomUUID } from 'node:crypto';
import type { Tx } from '../ports.ts';
import type { TransactionRecord } from '../types.ts';
import type { TransactionEvents } from '../transactions/ports.ts';
import type { WakeSignal } from '../notifications/ports.ts';

export const TRANSACTION_UPDATE = 'transaction_update';

/** The exact body sent on every attempt of the event: built once, stored, signed as stored. */
export function eventBody(id: string, timestamp: string, record: TransactionRecord): string {
  return JSON.stringify({
    id,
    event: TRANSACTION_UPDATE,
    timestamp,
    payload: { payload_type: 'transaction', ...record },
  });
}

/**
 * Relayer events (`relayer_low_balance`): `{ id, event, timestamp, payload: { payload_type, ...payload } }`, the
 * transaction_update envelope with the event's own payload_type. Written through `tx`, the transaction of the state
 * change, like transaction events; no transaction id, so they wait on no transaction's earlier events.
 */
export interface RelayerEvents {
  relayerEvent(
    tx: Tx,
    relayerId: string,
    event: string,
    payload: { payload_type: string } & Record<string, unknown>,
  ): Promise<void>;
}

export function createRelayerEvents(deps: { signal?: WakeSignal } = {}): RelayerEvents {
  return {
    async relayerEvent(tx, relayerId, event, payload) {
      const notificationId = await tx.webhookEvents.notificationOfRelayer(relayerId);
      if (!notificationId) return;
      const id = randomUUID();
      const now = new Date();
      const timestamp = now.toISOString();
      const body = JSON.stringify({ id, event, timestamp, payload });
      await tx.webhookEvents.insert({
        id,
        notification_id: notificationId,
        event,
        transaction_id: null,
        body,
        status: 'pending',
        attempts: 0,
        last_error: null,
        next_attempt_at: now.getTime(),
        created_at: timestamp,
        updated_at: timestamp,
        delivered_at: null,
      });
      if (deps.signal) tx.afterCommit(deps.signal.notify);
    },
  };
}

/**
 * `transactionChanged(tx, record)` writes through `tx`, the transaction of the state change: the
 * change and its event commit together or not at all. The dispatcher is rung once it has committed.
 */
export function createOutbox(deps: { signal?: WakeSignal } = {}): TransactionEvents {
  const { signal } = deps;
  return {
    async transactionChanged(tx, record) {
      const notificationId = await tx.webhookEvents.notificationOfRelayer(record.relayer_id);
      if (!notificationId) return;
      const id = randomUUID();
      const now = new Date();
      const timestamp = now.toISOString();
      await tx.webhookEvents.insert({
        id,
        notification_id: notificationId,
        event: TRANSACTION_UPDATE,
        transaction_id: record.id,
        body: eventBody(id, timestamp, record),
        status: 'pending',
        attempts: 0,
        last_error: null,
        next_attempt_at: now.getTime(),
        created_at: timestamp,
        updated_at: timestamp,
        delivered_at: null,
      });
      if (signal) tx.afterCommit(signal.notify);
    },
  };
}
