-- Relayers (seeded from the config file) and their transactions, with per-relayer counters for listing.
CREATE TABLE relayers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  network TEXT NOT NULL,
  network_type TEXT NOT NULL CHECK (network_type IN ('evm', 'solana', 'stellar')),
  signer_id TEXT NOT NULL,
  address TEXT NOT NULL,
  paused INTEGER NOT NULL DEFAULT 0,
  notification_id TEXT,
  -- 0 when the relayer left the config: kept for its transactions, hidden from the API.
  active INTEGER NOT NULL DEFAULT 1,
  next_nonce INTEGER NOT NULL DEFAULT 0,
  -- created_at of the relayer's newest transaction (ms): the next one gets a strictly later time.
  last_created_ms INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  relayer_id TEXT NOT NULL REFERENCES relayers (id),
  status TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  nonce INTEGER,
  -- Bumped on every update: an update names the version it read (optimistic check).
  version INTEGER NOT NULL DEFAULT 1,
  -- The whole record as the API returns it (amounts as decimal strings); columns above mirror it for indexes.
  record TEXT NOT NULL
);

-- Serve the listing order (newest first, then id) and deep offsets from the index alone.
CREATE INDEX transactions_by_relayer ON transactions (relayer_id, created_ms DESC, id DESC);
CREATE INDEX transactions_by_relayer_status ON transactions (relayer_id, status, created_ms DESC, id DESC);
-- A nonce is used once per relayer; a replace keeps the same row.
CREATE UNIQUE INDEX transactions_nonce ON transactions (relayer_id, nonce) WHERE nonce IS NOT NULL;

-- Kept in the same SQLite transaction as every insert and status change, so total_items costs one lookup.
CREATE TABLE transaction_counts (
  relayer_id TEXT NOT NULL,
  status TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (relayer_id, status)
) WITHOUT ROWID;
