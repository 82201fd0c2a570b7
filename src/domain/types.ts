// Shared domain types: the records the API returns and the relayer operations' contract. Ports import these, never the
// other way round: this module imports only the chain views (a leaf), so types flow down without a cycle.
import type { RelayerChainOperations } from './chains/views.ts';

export type NetworkType = 'evm' | 'solana' | 'stellar';

export type TransactionStatus =
  | 'pending'
  | 'sent'
  | 'submitted'
  | 'mined'
  | 'confirmed'
  | 'failed'
  | 'expired'
  | 'canceled';

export const FINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(['confirmed', 'failed', 'expired', 'canceled']);

/** An RPC endpoint: tried highest weight first (0-100). */
export interface RpcUrl {
  url: string;
  weight: number;
}

/** A relayer as the API returns it. */
export interface RelayerView {
  id: string;
  name: string;
  network: string;
  network_type: NetworkType;
  paused: boolean;
  signer_id: string;
  address: string;
  notification_id: string | null;
  /** The policies given for the relayer (the reference's shape for its network type), or null. */
  policies: Record<string, unknown> | null;
  /** Masked: scheme and host shown, path and query hidden (they often hold provider keys). */
  custom_rpc_urls: Array<{ url: string; weight: number }> | null;
  system_disabled: boolean;
  disabled_reason: { type: string; details: string | string[] } | null;
  /** Our extension, only for a key pool (relayers/pool-view.ts): every lane's address, balance, pending and state. */
  lanes?: Array<{
    address: string;
    signer_id: string;
    balance: string | null;
    pending: number;
    max_pending: number;
    state: string;
    state_reason: string | null;
  }>;
  /** Our extension, only for a key pool with a funding key (relayers/funding.ts): its signer and its lane. */
  funding_signer_id?: string;
  funding?: NonNullable<RelayerView['lanes']>[number];
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

/** A send's answer. */
export interface SentTransaction {
  record: TransactionRecord;
  /** True when an idempotency key had already answered: `record` is that transaction as it is now. */
  replayed: boolean;
}

/**
 * The relayer operations, with validation included: the HTTP routes and the plugin sandbox's
 * `api.useRelayer(id)` both call these, so both get the same rules, store and webhooks. The chain
 * operations (status, balance, rpc, signing) are listed in chains/views.ts.
 * Inputs are raw (as received); failures are AppErrors with the same reason the HTTP API gives.
 */
export interface RelayerOperations extends RelayerChainOperations {
  /** `scope`: the relayer ids a scoped key may see ('all' by default). */
  listRelayers(query?: unknown, scope?: 'all' | string[]): Promise<Page<RelayerView>>;
  getRelayer(relayerId: string): Promise<RelayerView>;
  updateRelayer(relayerId: string, body: unknown): Promise<RelayerView>;
  createRelayer(body: unknown): Promise<RelayerView>;
  deleteRelayer(relayerId: string): Promise<void>;
  /** `idempotencyKey` as the caller gave it (an Idempotency-Key header, a plugin's option): checked here. */
  sendTransaction(relayerId: string, body: unknown, idempotencyKey?: unknown): Promise<SentTransaction>;
  getTransaction(relayerId: string, transactionId: string): Promise<TransactionRecord>;
  listTransactions(relayerId: string, query: unknown): Promise<Page<TransactionRecord>>;
  replaceTransaction(relayerId: string, transactionId: string, body: unknown): Promise<TransactionRecord>;
  cancelTransaction(relayerId: string, transactionId: string): Promise<TransactionRecord>;
  getTransactionByNonce(relayerId: string, nonce: string): Promise<TransactionRecord>;
  deletePendingTransactions(relayerId: string): Promise<DeletePendingResult>;
  /** Sponsored (gasless) transactions: the fee in a token, and the transaction paying it (Stellar; Solana by its family). */
  quoteSponsoredTransaction(relayerId: string, body: unknown): Promise<Record<string, unknown>>;
  buildSponsoredTransaction(relayerId: string, body: unknown): Promise<Record<string, unknown>>;
}

/** The reference's DeletePendingTransactionsResponse. */
export interface DeletePendingResult {
  queued_for_cancellation_transaction_ids: string[];
  failed_to_queue_transaction_ids: string[];
  total_processed: number;
}
