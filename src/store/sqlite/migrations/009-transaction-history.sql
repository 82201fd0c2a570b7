-- Issue 28: every state a transaction was written in, for its timeline (the console, and
-- GET /relayers/{id}/transactions/{tx}/timeline). Written by triggers on the row itself, so every writer (send,
-- check jobs, replace, cancel, recovery) is recorded in the same store transaction without knowing about it.
-- Append-only; a deleted transaction takes its history with it.
CREATE TABLE transaction_history (
  transaction_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  at_ms INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (transaction_id, version)
);

CREATE TRIGGER transaction_history_insert AFTER INSERT ON transactions BEGIN
  INSERT INTO transaction_history (transaction_id, version, at_ms, record)
  VALUES (NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NEW.record);
END;

CREATE TRIGGER transaction_history_update AFTER UPDATE OF record ON transactions BEGIN
  INSERT OR REPLACE INTO transaction_history (transaction_id, version, at_ms, record)
  VALUES (NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NEW.record);
END;

CREATE TRIGGER transaction_history_delete AFTER DELETE ON transactions BEGIN
  DELETE FROM transaction_history WHERE transaction_id = OLD.id;
END;

-- A transaction's webhook events, for the same timeline.
CREATE INDEX webhook_events_by_transaction ON webhook_events (transaction_id, seq);
