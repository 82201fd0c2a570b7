-- Relayers (seeded from the config file) and their transactions, with per-relayer counters for listing.
-- Same shape as the SQLite schema (src/store/sqlite/migrations); times in Unix ms are BIGINT.
CREATE TABLE relayers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  network TEXT NOT NULL,
  network_type TEXT NOT NULL CHECK (network_type IN ('evm', 'solana', 'stellar')),
  signer_id TEXT NOT NULL,
  address TEXT NOT NULL,
  paused BOOLEAN NOT NULL DEFAULT false,
  notification_id TEXT,
  -- false when the relayer left the config: kept for its transactions, hidden from the API.
  active BOOLEAN NOT NULL DEFAULT true,
  -- Allocated under this row's lock (SELECT … FOR UPDATE) in the transaction that writes the record.
  next_nonce BIGINT NOT NULL DEFAULT 0,
  last_created_ms BIGINT NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  relayer_id TEXT NOT NULL REFERENCES relayers (id),
  status TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  nonce BIGINT,
  version INTEGER NOT NULL DEFAULT 1,
  -- The whole record as the API returns it (JSON text: written and read as is, never queried inside).
  record TEXT NOT NULL
);

CREATE INDEX transactions_by_relayer ON transactions (relayer_id, created_ms DESC, id DESC);
CREATE INDEX transactions_by_relayer_status ON transactions (relayer_id, status, created_ms DESC, id DESC);
CREATE UNIQUE INDEX transactions_nonce ON transactions (relayer_id, nonce) WHERE nonce IS NOT NULL;

CREATE TABLE transaction_counts (
  relayer_id TEXT NOT NULL,
  status TEXT NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (relayer_id, status)
);
