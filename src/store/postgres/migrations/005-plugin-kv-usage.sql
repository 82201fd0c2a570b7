-- Per-plugin KV usage (keys, and bytes of keys + values), kept by a trigger so that every write path counts.
CREATE TABLE plugin_kv_usage (
  plugin_id TEXT PRIMARY KEY,
  keys BIGINT NOT NULL DEFAULT 0,
  bytes BIGINT NOT NULL DEFAULT 0
);

CREATE FUNCTION plugin_kv_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO plugin_kv_usage AS u (plugin_id, keys, bytes) VALUES (NEW.plugin_id, 1, octet_length(NEW.key) + octet_length(NEW.value))
      ON CONFLICT (plugin_id) DO UPDATE SET keys = u.keys + 1, bytes = u.bytes + octet_length(NEW.key) + octet_length(NEW.value);
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE plugin_kv_usage SET bytes = bytes - octet_length(OLD.value) + octet_length(NEW.value) WHERE plugin_id = NEW.plugin_id;
  ELSE
    UPDATE plugin_kv_usage SET keys = keys - 1, bytes = bytes - octet_length(OLD.key) - octet_length(OLD.value) WHERE plugin_id = OLD.plugin_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER plugin_kv_usage_track AFTER INSERT OR UPDATE OF value OR DELETE ON plugin_kv
  FOR EACH ROW EXECUTE FUNCTION plugin_kv_usage_track();
