-- Issue 26: the Idempotency-Key of a send, written in the store transaction that inserts its transaction (the key and
-- the transaction exist together or not at all). The primary key decides between requests racing on one key.
CREATE TABLE idempotency_keys (
  relayer_id TEXT NOT NULL,
  key TEXT NOT NULL,
  -- sha256 of the canonical validated request: the same key with another request is refused.
  request_hash TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (relayer_id, key)
) WITHOUT ROWID;

-- Pruning walks the oldest entries.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
