// PostgreSQL repository for idempotency keys (migrations/011-idempotency-keys.sql), same behaviour as
// src/store/sqlite/idempotency-repo.ts. Instances racing on one key: the primary key makes the second insert wait for
// the first's transaction, then find the key taken (or write it, if that transaction rolled back).
import { sql, type Kysely } from 'kysely';
import type { IdempotencyEntry, IdempotencyRepo } from '../../domain/idempotency/ports.ts';
import type { Database } from './schema.ts';

export function createIdempotencyRepo(q: Kysely<Database>): IdempotencyRepo {
  return {
    async get(relayerId, key) {
      const r = await q
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('relayer_id', '=', relayerId)
        .where('key', '=', key)
        .executeTakeFirst();
      return (
        r &&
        ({
          relayerId: r.relayer_id,
          key: r.key,
          requestHash: r.request_hash,
          transactionId: r.transaction_id,
          createdMs: r.created_ms,
        } satisfies IdempotencyEntry)
      );
    },
    async insert(relayerId, claims, createdMs, expiredBefore) {
      // One statement may not upsert a row twice: a key given twice is written once, by its first claim.
      const seen = new Set<string>();
      const unique = claims.filter((c) => !seen.has(c.key) && seen.add(c.key));
      if (unique.length === 0) return [];
      const values = sql.join(
        unique.map((c) => sql`(${relayerId}, ${c.key}, ${c.requestHash}, ${c.transactionId}, ${createdMs}::bigint)`),
      );
      const { rows } = await sql<{ key: string }>`
        INSERT INTO idempotency_keys AS k (relayer_id, key, request_hash, transaction_id, created_ms) VALUES ${values}
        ON CONFLICT (relayer_id, key) DO UPDATE SET request_hash = excluded.request_hash, transaction_id = excluded.transaction_id, created_ms = excluded.created_ms
        WHERE k.created_ms < ${expiredBefore}::bigint
        RETURNING k.key`.execute(q);
      return rows.map((r) => r.key);
    },
    async prune(before) {
      const r = await q.deleteFrom('idempotency_keys').where('created_ms', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
