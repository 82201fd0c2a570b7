-- Facts every instance sharing this database must agree on (e.g. the STORAGE_ENCRYPTION_KEY verifier).
CREATE TABLE relaybox_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
