-- Issue 28, as in the SQLite schema (src/store/sqlite/migrations/009-transaction-history.sql): every state a transaction
-- was written in, for its timeline, written by triggers on the row in the writer's own transaction.
CREATE TABLE transaction_history (
  transaction_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  at_ms BIGINT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (transaction_id, version)
);

CREATE FUNCTION relaybox_transaction_history() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transaction_history WHERE transaction_id = OLD.id;
    RETURN OLD;
  END IF;
  INSERT INTO transaction_history (transaction_id, version, at_ms, record)
  VALUES (NEW.id, NEW.version, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, NEW.record)
  ON CONFLICT (transaction_id, version) DO UPDATE SET at_ms = excluded.at_ms, record = excluded.record;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER transaction_history_write AFTER INSERT OR UPDATE OF record OR DELETE ON transactions
  FOR EACH ROW EXECUTE FUNCTION relaybox_transaction_history();

-- A transaction's webhook events, for the same timeline.
CREATE INDEX webhook_events_by_transaction ON webhook_events (transaction_id, seq);
