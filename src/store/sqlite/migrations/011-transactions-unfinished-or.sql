-- The partial index of 007 said `status IN (four values)`: SQLite tests an IN list of more than two constants through a
-- temporary b-tree, with a page cache of its own, built and freed for the old and the new row of every insert and
-- update of a transaction. The same condition written as comparisons is tested in place. The query that walks the
-- index (transactions-repo.ts, `unfinished`) states the condition in the same words, so the planner still proves it.
DROP INDEX transactions_unfinished;
CREATE INDEX transactions_unfinished ON transactions (relayer_id, nonce)
  WHERE nonce IS NOT NULL AND (status = 'pending' OR status = 'sent' OR status = 'submitted' OR status = 'mined');
