-- Issue 26, as in the SQLite schema (src/store/sqlite/migrations/010-idempotency-keys.sql): a send's Idempotency-Key, written
-- with its transaction. The primary key decides between instances racing on one key: the loser's insert waits for the
-- winner's commit, then finds the key taken.
CREATE TABLE idempotency_keys (
  relayer_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  PRIMARY KEY (relayer_id, key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
