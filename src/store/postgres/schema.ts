// The PostgreSQL tables as Kysely sees them (migrations/*.sql). BIGINT columns arrive as numbers (see db.ts).
import type { Generated } from 'kysely';

export interface RelayersTable {
  id: string;
  name: string;
  network: string;
  network_type: 'evm' | 'solana' | 'stellar';
  signer_id: string;
  address: string;
  paused: boolean;
  notification_id: string | null;
  /** JSON text or null (as in SQLite). */
  policies: string | null;
  custom_rpc_urls: string | null;
  system_disabled: Generated<boolean>;
  disabled_reason: string | null;
  source: Generated<'config' | 'api'>;
  seed_hash: string | null;
  deleted_at: string | null;
  active: Generated<boolean>;
  next_nonce: number;
  last_created_ms: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface TransactionsTable {
  id: string;
  relayer_id: string;
  status: string;
  created_ms: number;
  nonce: number | null;
  version: Generated<number>;
  record: string;
  /** '' for the relayer's first key; a pool key's address (issue 44). */
  lane: Generated<string>;
}

export interface RelayerLanesTable {
  relayer_id: string;
  address: string;
  signer_id: string;
  position: number;
  max_pending: number;
  next_nonce: Generated<number>;
  last_created_ms: Generated<number>;
  state: Generated<'active' | 'fee_cap' | 'stuck' | 'low_balance' | 'signer_failing'>;
  state_reason: string | null;
}

export interface TransactionCountsTable {
  relayer_id: string;
  status: string;
  count: number;
}

export interface NotificationsTable {
  pos: Generated<number>;
  id: string;
  type: 'webhook';
  url: string;
  signing_key: string | null;
  seed_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  seq: Generated<number>;
  id: string;
  notification_id: string;
  event: string;
  transaction_id: string | null;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  subject: string;
  due_at: number;
  attempts: Generated<number>;
  payload: string | null;
  generation: Generated<number>;
  claims: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface PluginKvTable {
  plugin_id: string;
  key: string;
  value: string;
  expires_at: number | null;
}

export interface PluginKvLocksTable {
  plugin_id: string;
  key: string;
  token: string;
  expires_at: number;
}

export interface PluginKvUsageTable {
  plugin_id: string;
  keys: number;
  bytes: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface SignersTable {
  id: string;
  type: string;
  config: string;
  secret: string | null;
  source: 'config' | 'api';
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface NetworkOverridesTable {
  network_type: 'evm' | 'solana' | 'stellar';
  name: string;
  rpc_urls: string;
  updated_at: string;
}

export interface PluginOverridesTable {
  plugin_id: string;
  settings: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  key_hash: string;
  permissions: string;
  allowed_origins: string;
  created_at: string;
  /** JSON `{ requests_per_second, burst_size }`, or NULL: the service's default. */
  rate_limit: string | null;
}

export interface IdempotencyKeysTable {
  relayer_id: string;
  key: string;
  request_hash: string;
  transaction_id: string;
  created_ms: number;
}

export interface Database {
  signers: SignersTable;
  network_overrides: NetworkOverridesTable;
  plugin_overrides: PluginOverridesTable;
  api_keys: ApiKeysTable;
  relayers: RelayersTable;
  relayer_lanes: RelayerLanesTable;
  transactions: TransactionsTable;
  transaction_counts: TransactionCountsTable;
  idempotency_keys: IdempotencyKeysTable;
  notifications: NotificationsTable;
  webhook_events: WebhookEventsTable;
  jobs: JobsTable;
  plugin_kv: PluginKvTable;
  plugin_kv_locks: PluginKvLocksTable;
  plugin_kv_usage: PluginKvUsageTable;
  relaybox_meta: MetaTable;
}
