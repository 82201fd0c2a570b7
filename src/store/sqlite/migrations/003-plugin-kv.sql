-- Per-plugin key-value store (the `kv` of the plugin context) and its advisory locks (kv.withLock).
CREATE TABLE plugin_kv (
  plugin_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (plugin_id, key)
) WITHOUT ROWID;

CREATE TABLE plugin_kv_locks (
  plugin_id TEXT NOT NULL,
  key TEXT NOT NULL,
  token TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (plugin_id, key)
) WITHOUT ROWID;
