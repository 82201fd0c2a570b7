// Rows for the contract cases, built the way the domain builds them.
import type { RelayerSeed } from '../../../src/domain/relayers/ports.ts';
import { seedHashOf } from '../../../src/domain/relayers/seed-hash.ts';
import type { NotificationRow, WebhookEventRow } from '../../../src/domain/notifications/ports.ts';
import type { TransactionRecord, TransactionStatus } from '../../../src/domain/types.ts';

export function relayerSeed(id: string, extra: Partial<RelayerSeed> = {}): RelayerSeed {
  const seed = {
    id,
    name: `relayer ${id}`,
    network: 'sepolia',
    network_type: 'evm' as const,
    signer_id: 'signer',
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    paused: false,
    notification_id: null,
    policies: null,
    custom_rpc_urls: null,
    initial_nonce: 0,
    ...extra,
  };
  return { ...seed, seed_hash: extra.seed_hash ?? seedHashOf(seed) };
}

export function txRecord(
  relayerId: string,
  id: string,
  createdMs: number,
  status: TransactionStatus = 'pending',
): TransactionRecord {
  return {
    id,
    relayer_id: relayerId,
    status,
    status_reason: null,
    created_at: new Date(createdMs).toISOString(),
    sent_at: null,
    confirmed_at: null,
    value: '1',
  };
}

export function notificationRow(id: string, createdAt = new Date().toISOString()): NotificationRow {
  return {
    id,
    type: 'webhook',
    url: `https://example.com/${id}`,
    signing_key: null,
    seed_hash: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

export function eventRow(
  id: string,
  notificationId: string,
  transactionId: string | null,
  nextAttemptAt: number,
): Omit<WebhookEventRow, 'seq'> {
  const at = new Date(nextAttemptAt).toISOString();
  return {
    id,
    notification_id: notificationId,
    event: 'transaction_update',
    transaction_id: transactionId,
    body: JSON.stringify({ id }),
    status: 'pending',
    attempts: 0,
    last_error: null,
    next_attempt_at: nextAttemptAt,
    created_at: at,
    updated_at: at,
    delivered_at: null,
  };
}

/** Resolves after `ms`: lets a test hold a transaction open across real time (which production code must never do). */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
