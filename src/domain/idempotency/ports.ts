// The store's side of idempotency keys: one entry per (relayer, key), written in the store transaction that inserts the
// transaction it names, so an entry never exists without its transaction.

export interface IdempotencyEntry {
  relayerId: string;
  key: string;
  /** Hash of the canonical validated request (hex). */
  requestHash: string;
  transactionId: string;
  /** Unix ms. */
  createdMs: number;
}

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
  transactionId: string;
}

export interface IdempotencyRepo {
  get(relayerId: string, key: string): Promise<IdempotencyEntry | undefined>;
  /**
   * In the transaction that inserts the claims' transactions: writes each claim whose key is free for the relayer, or
   * held by an entry created before `expiredBefore` (replaced). Returns the keys written; a key held by another entry
   * is left as it is (on PostgreSQL, after waiting for the transaction that wrote it to end).
   */
  insert(
    relayerId: string,
    claims: readonly IdempotencyClaim[],
    createdMs: number,
    expiredBefore: number,
  ): Promise<string[]>;
  /** Deletes the entries created before `before`; returns how many. */
  prune(before: number): Promise<number>;
}
