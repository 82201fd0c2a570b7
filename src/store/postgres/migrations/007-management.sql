-- Management through the API (issue 16), as in the SQLite schema (src/store/sqlite/migrations/006-management.sql):
-- relayers created, changed and deleted at run time, signers, network RPC URL and plugin setting changes, API keys.
ALTER TABLE relayers ADD COLUMN policies TEXT;
ALTER TABLE relayers ADD COLUMN custom_rpc_urls TEXT;
ALTER TABLE relayers ADD COLUMN system_disabled BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE relayers ADD COLUMN disabled_reason TEXT;
ALTER TABLE relayers ADD COLUMN source TEXT NOT NULL DEFAULT 'config' CHECK (source IN ('config', 'api'));
ALTER TABLE relayers ADD COLUMN seed_hash TEXT;
ALTER TABLE relayers ADD COLUMN deleted_at TEXT;

CREATE TABLE signers (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  secret TEXT,
  source TEXT NOT NULL CHECK (source IN ('config', 'api')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);

CREATE TABLE network_overrides (
  network_type TEXT NOT NULL,
  name TEXT NOT NULL,
  rpc_urls TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (network_type, name)
);

CREATE TABLE plugin_overrides (
  plugin_id TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  permissions TEXT NOT NULL,
  allowed_origins TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX api_keys_by_created ON api_keys (created_at DESC, id DESC);
