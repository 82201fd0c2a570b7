-- Issue 44: key pools, as in the SQLite schema (src/store/sqlite/migrations/013-relayer-lanes.sql). A lane row is locked
-- (FOR UPDATE, or by the UPDATE that takes its nonce) by the store transaction that writes its sends.
CREATE TABLE relayer_lanes (
  relayer_id TEXT NOT NULL,
  address TEXT NOT NULL,
  signer_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  max_pending INTEGER NOT NULL,
  next_nonce BIGINT NOT NULL DEFAULT 0,
  last_created_ms BIGINT NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'active',
  state_reason TEXT,
  PRIMARY KEY (relayer_id, address)
);

ALTER TABLE transactions ADD COLUMN lane TEXT NOT NULL DEFAULT '';
DROP INDEX transactions_nonce;
CREATE UNIQUE INDEX transactions_nonce ON transactions (relayer_id, lane, nonce) WHERE nonce IS NOT NULL;
-- The tracking walk reads one lane's unfinished transactions in nonce order.
DROP INDEX transactions_unfinished;
CREATE INDEX transactions_unfinished ON transactions (relayer_id, lane, nonce)
  WHERE nonce IS NOT NULL AND status IN ('pending', 'sent', 'submitted', 'mined');
