-- Per-plugin key-value store (the `kv` of the plugin context).
CREATE TABLE plugin_kv (
  plugin_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (plugin_id, key)
) WITHOUT ROWID;
