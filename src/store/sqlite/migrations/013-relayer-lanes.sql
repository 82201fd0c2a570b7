-- Issue 44: key pools. A relayer with several signers (`signer_ids`) sends through one lane per key: each lane its
-- own nonce sequence, funds ledger row (relayer_funds keyed '<relayer>#<address>'), in-flight limit and state. The
-- first key's lane is the relayer row itself (its nonce stays in relayers.next_nonce, its ledger under the relayer's
-- id, its transactions under lane ''); this table lists every lane of a pool, the first included, for its state.
CREATE TABLE relayer_lanes (
  relayer_id TEXT NOT NULL,
  address TEXT NOT NULL,
  signer_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  max_pending INTEGER NOT NULL,
  next_nonce INTEGER NOT NULL DEFAULT 0,
  last_created_ms INTEGER NOT NULL DEFAULT 0,
  -- 'active', or why the lane is out of the routing (lanes.ts LaneState)
  state TEXT NOT NULL DEFAULT 'active',
  state_reason TEXT,
  PRIMARY KEY (relayer_id, address)
) WITHOUT ROWID;

-- The lane that signed a transaction: '' for the relayer's first key (every transaction written before pools), else
-- the key's address. Nonces are unique per lane.
ALTER TABLE transactions ADD COLUMN lane TEXT NOT NULL DEFAULT '';
DROP INDEX transactions_nonce;
CREATE UNIQUE INDEX transactions_nonce ON transactions (relayer_id, lane, nonce) WHERE nonce IS NOT NULL;
-- The tracking walk reads one lane's unfinished transactions in nonce order (the condition as in 011: comparisons).
DROP INDEX transactions_unfinished;
CREATE INDEX transactions_unfinished ON transactions (relayer_id, lane, nonce)
  WHERE nonce IS NOT NULL AND (status = 'pending' OR status = 'sent' OR status = 'submitted' OR status = 'mined');
