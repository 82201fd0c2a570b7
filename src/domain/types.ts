// Shared domain types: the records the API returns and the contracts between parts.
import type { Tx } from './ports.ts';

export type NetworkType = 'evm' | 'solana' | 'stellar';

export type TransactionStatus = 'pending' | 'sent' | 'submitted' | 'mined' | 'confirmed' | 'failed' | 'expired' | 'canceled';

export const FINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(['confirmed', 'failed', 'expired', 'canceled']);

/** A relayer as the API returns it. */
export interface RelayerView {
  id: string;
  name: string;
  network: string;
  network_type: NetworkType;
  paused: boolean;
  address: string;
  notification_id: string | null;
}

/**
 * A transaction as the API returns it. Amounts are decimal strings (exact u128/int64);
 * network-specific fields appear only for their network type.
 */
export interface TransactionRecord {
  id: string;
  relayer_id: string;
  status: TransactionStatus;
  status_reason: string | null;
  created_at: string;
  sent_at: string | null;
  confirmed_at: string | null;
  [field: string]: unknown;
}

/** Which page a list request asks for (validated: page >= 1, per_page 0-100). */
export interface PageRequest {
  page: number;
  per_page: number;
}

export interface Page<T> {
  items: T[];
  pagination: { current_page: number; per_page: number; total_items: number };
}

/**
 * The relayer operations, with validation included: the HTTP routes and the plugin sandbox's
 * `api.useRelayer(id)` both call these, so both get the same rules, store and webhooks.
 * Inputs are raw (as received); failures are AppErrors with the same reason the HTTP API gives.
 */
export interface RelayerOperations {
  listRelayers(query?: unknown): Promise<Page<RelayerView>>;
  getRelayer(relayerId: string): Promise<RelayerView>;
  updateRelayer(relayerId: string, body: unknown): Promise<RelayerView>;
  sendTransaction(relayerId: string, body: unknown): Promise<TransactionRecord>;
  getTransaction(relayerId: string, transactionId: string): Promise<TransactionRecord>;
  listTransactions(relayerId: string, query: unknown): Promise<Page<TransactionRecord>>;
  replaceTransaction(relayerId: string, transactionId: string, body: unknown): Promise<TransactionRecord>;
  cancelTransaction(relayerId: string, transactionId: string): Promise<TransactionRecord>;
}

/**
 * Records a `transaction_update` event for the relayer's webhook, if it has one, through `tx`: the
 * transaction that writes the state change (transactional outbox), so a change and its event exist
 * together or not at all. The dispatcher is woken after the commit.
 */
export interface TransactionEvents {
  transactionChanged(tx: Tx, record: TransactionRecord): Promise<void>;
}
