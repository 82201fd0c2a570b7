-- Issue 39, as in the SQLite schema (src/store/sqlite/migrations/012-relayer-funds.sql): a relayer's funds as a ledger, wei
-- reserved by its unmined EVM sends and wei released so far. NUMERIC(78): every uint256, added exactly in SQL; the row
-- is taken (locked) by the store transaction that takes the send's nonce, so instances cannot promise the same wei.
CREATE TABLE relayer_funds (
  relayer_id TEXT PRIMARY KEY,
  reserved NUMERIC(78, 0) NOT NULL,
  released NUMERIC(78, 0) NOT NULL
);
