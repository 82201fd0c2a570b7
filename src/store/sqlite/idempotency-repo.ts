// SQLite repository for idempotency keys (src/store/sqlite/migrations/010-idempotency-keys.sql). Writes run under the
// database's one write lock, so the first of two requests racing on a key writes it and the other finds it taken.
import type { Db } from './db.ts';
import type { IdempotencyEntry, IdempotencyRepo } from '../../domain/idempotency/ports.ts';
import type { SyncOf } from './sync-ops.ts';

interface Row {
  relayer_id: string;
  key: string;
  request_hash: string;
  transaction_id: string;
  created_ms: number;
}

const toEntry = (r: Row): IdempotencyEntry => ({
  relayerId: r.relayer_id,
  key: r.key,
  requestHash: r.request_hash,
  transactionId: r.transaction_id,
  createdMs: r.created_ms,
});

export function createIdempotencyRepo(db: Db): SyncOf<IdempotencyRepo> {
  const getOne = db.prepare<[string, string], Row>(
    'SELECT relayer_id, key, request_hash, transaction_id, created_ms FROM idempotency_keys WHERE relayer_id = ? AND key = ?',
  );
  // An expired entry is replaced in place: its key is free again.
  const upsert = db.prepare(`
    INSERT INTO idempotency_keys (relayer_id, key, request_hash, transaction_id, created_ms) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (relayer_id, key) DO UPDATE SET request_hash = excluded.request_hash, transaction_id = excluded.transaction_id, created_ms = excluded.created_ms
    WHERE idempotency_keys.created_ms < ?`);
  const prune = db.prepare('DELETE FROM idempotency_keys WHERE created_ms < ?');
  return {
    get(relayerId, key) {
      const row = getOne.get(relayerId, key);
      return row && toEntry(row);
    },
    insert(relayerId, claims, createdMs, expiredBefore) {
      const written: string[] = [];
      for (const c of claims)
        if (upsert.run(relayerId, c.key, c.requestHash, c.transactionId, createdMs, expiredBefore).changes === 1)
          written.push(c.key);
      return written;
    },
    prune: (before) => prune.run(before).changes,
  };
}
