-- Relayers (seeded from the config file) and their transactions.
CREATE TABLE relayers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  network TEXT NOT NULL,
  network_type TEXT NOT NULL CHECK (network_type IN ('evm', 'solana', 'stellar')),
  signer_id TEXT NOT NULL,
  address TEXT NOT NULL,
  paused INTEGER NOT NULL DEFAULT 0,
  notification_id TEXT,
  next_nonce INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  relayer_id TEXT NOT NULL REFERENCES relayers (id),
  status TEXT NOT NULL,
  status_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sent_at TEXT,
  confirmed_at TEXT,
  nonce INTEGER,
  -- Everything else of the record (network-specific fields, signature, hash history) as JSON.
  record TEXT NOT NULL
);

-- Serves the listing order (newest first, then id) and deep offsets from the index alone.
CREATE INDEX transactions_by_relayer ON transactions (relayer_id, created_at DESC, id DESC);
CREATE INDEX transactions_by_relayer_status ON transactions (relayer_id, status, created_at DESC, id DESC);
-- A nonce is used once per relayer; a replace keeps the same row.
CREATE UNIQUE INDEX transactions_nonce ON transactions (relayer_id, nonce) WHERE nonce IS NOT NULL;
