-- Issue 39: a relayer's funds as a ledger. `reserved`: wei promised to its unmined EVM sends (each at its worst case);
-- `released`: wei released so far by sends that went final, ever growing, so that a balance read from the node before
-- a release is known to be stale by at most that much. Decimal text: wei pass 2^63, SQLite's integers do not.
CREATE TABLE relayer_funds (
  relayer_id TEXT PRIMARY KEY,
  reserved TEXT NOT NULL,
  released TEXT NOT NULL
);
