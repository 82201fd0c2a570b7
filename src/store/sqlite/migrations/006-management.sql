-- Management through the API (issue 16): relayers created, changed and deleted at run time, signers, network RPC URL
-- changes, plugin setting changes and API keys. The config file seeds these; the store wins afterwards.

-- JSON text or NULL.
ALTER TABLE relayers ADD COLUMN policies TEXT;
ALTER TABLE relayers ADD COLUMN custom_rpc_urls TEXT;
ALTER TABLE relayers ADD COLUMN system_disabled INTEGER NOT NULL DEFAULT 0;
-- JSON `{ "type", "details" }` or NULL.
ALTER TABLE relayers ADD COLUMN disabled_reason TEXT;
-- 'config': seeded from the config file; 'api': created through POST /api/v1/relayers (never touched by seeding).
ALTER TABLE relayers ADD COLUMN source TEXT NOT NULL DEFAULT 'config' CHECK (source IN ('config', 'api'));
-- Fingerprint of the config entry that last wrote the config-owned fields (NULL: not yet written by this version).
ALTER TABLE relayers ADD COLUMN seed_hash TEXT;
-- Set by DELETE: the row stays (a config relayer deleted through the API is not seeded again), hidden like active = 0.
ALTER TABLE relayers ADD COLUMN deleted_at TEXT;

CREATE TABLE signers (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  -- Non-secret settings as JSON (a keystore's path); never a key.
  config TEXT NOT NULL DEFAULT '{}',
  -- API-created signers: the key, plain or sealed ('enc:v1:…') when STORAGE_ENCRYPTION_KEY is set. Config signers: NULL.
  secret TEXT,
  source TEXT NOT NULL CHECK (source IN ('config', 'api')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);

-- RPC URLs changed through PATCH /api/v1/networks/{id}: they replace the config file's for that network.
CREATE TABLE network_overrides (
  network_type TEXT NOT NULL,
  name TEXT NOT NULL,
  -- JSON array of { url, weight }.
  rpc_urls TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (network_type, name)
) WITHOUT ROWID;

-- Plugin settings changed through PATCH /api/v1/plugins/{id}: JSON of the changed fields, applied over the config's.
CREATE TABLE plugin_overrides (
  plugin_id TEXT PRIMARY KEY,
  settings TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- SHA-256 of the secret (hex); the secret itself is shown once, at creation, and never stored.
  key_hash TEXT NOT NULL UNIQUE,
  permissions TEXT NOT NULL,
  allowed_origins TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX api_keys_by_created ON api_keys (created_at DESC, id DESC);
