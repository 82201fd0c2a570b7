-- Per-plugin key-value store (the `kv` of the plugin context) and its locks (kv.withLock).
CREATE TABLE plugin_kv (
  plugin_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at BIGINT,
  PRIMARY KEY (plugin_id, key)
);

CREATE TABLE plugin_kv_locks (
  plugin_id TEXT NOT NULL,
  key TEXT NOT NULL,
  token TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (plugin_id, key)
);
