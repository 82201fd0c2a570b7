-- Background tracking walks a relayer's non-final transactions in nonce order; final ones (the great majority) stay out of this index.
CREATE INDEX transactions_unfinished ON transactions (relayer_id, nonce)
  WHERE nonce IS NOT NULL AND status IN ('pending', 'sent', 'submitted', 'mined');
