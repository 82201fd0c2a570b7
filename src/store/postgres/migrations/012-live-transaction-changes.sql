-- Every committed transaction change reaches the events stream (GET /api/v1/events) of every instance, not only the
-- writer's: the history trigger of migration 010 also sends a NOTIFY on relaybox_live, delivered with the commit.
-- The payload is "<writer instance> <transaction id> <version>"; the writer's instance id is its connections'
-- relaybox.instance setting (src/store/postgres/db.ts), empty for any other writer (a tool, psql).
CREATE OR REPLACE FUNCTION relaybox_transaction_history() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM transaction_history WHERE transaction_id = OLD.id;
    RETURN OLD;
  END IF;
  INSERT INTO transaction_history (transaction_id, version, at_ms, record)
  VALUES (NEW.id, NEW.version, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, NEW.record)
  ON CONFLICT (transaction_id, version) DO UPDATE SET at_ms = excluded.at_ms, record = excluded.record;
  PERFORM pg_notify('relaybox_live', coalesce(current_setting('relaybox.instance', true), '') || ' ' || NEW.id || ' ' || NEW.version);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
