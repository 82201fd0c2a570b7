-- Per-plugin KV usage (keys, and bytes of keys + values, expired rows included until purged), kept by triggers so
-- that every write path counts; the repository checks a write against the plugin's quota before it is made.
CREATE TABLE plugin_kv_usage (
  plugin_id TEXT PRIMARY KEY,
  keys INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO plugin_kv_usage (plugin_id, keys, bytes)
  SELECT plugin_id, count(*), sum(length(CAST(key AS BLOB)) + length(CAST(value AS BLOB))) FROM plugin_kv GROUP BY plugin_id;

CREATE TRIGGER plugin_kv_usage_insert AFTER INSERT ON plugin_kv BEGIN
  INSERT OR IGNORE INTO plugin_kv_usage (plugin_id) VALUES (NEW.plugin_id);
  UPDATE plugin_kv_usage SET keys = keys + 1, bytes = bytes + length(CAST(NEW.key AS BLOB)) + length(CAST(NEW.value AS BLOB))
    WHERE plugin_id = NEW.plugin_id;
END;

CREATE TRIGGER plugin_kv_usage_update AFTER UPDATE OF value ON plugin_kv BEGIN
  UPDATE plugin_kv_usage SET bytes = bytes - length(CAST(OLD.value AS BLOB)) + length(CAST(NEW.value AS BLOB))
    WHERE plugin_id = NEW.plugin_id;
END;

CREATE TRIGGER plugin_kv_usage_delete AFTER DELETE ON plugin_kv BEGIN
  UPDATE plugin_kv_usage SET keys = keys - 1, bytes = bytes - length(CAST(OLD.key AS BLOB)) - length(CAST(OLD.value AS BLOB))
    WHERE plugin_id = OLD.plugin_id;
END;
