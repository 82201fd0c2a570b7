// The PostgreSQL side of src/store/open.ts, in a module of its own: open.ts imports it only when DATABASE_URL is set,
// so an instance on SQLite never loads Kysely (~1,000 modules), pg and the PostgreSQL repositories.
import { createPostgresStore } from './store.ts';
import { migrate, underStartupLock } from './db.ts';
import { checkStorageKey } from './instance-checks.ts';
import { createPostgresKvRepo } from './kv-repo.ts';
import type { TransactionCountRow } from '../probes.ts';
import type { Log } from '../../domain/log.ts';

export interface PostgresOptions {
  databaseUrl: string;
  instanceId: string;
  storageKeyVerifier: string;
  previousStorageKeyVerifier?: string;
  outboxLeaseMs: number;
  logger: Pick<Log, 'info'>;
}

export function openPostgres(options: PostgresOptions) {
  const store = createPostgresStore({
    url: options.databaseUrl,
    outbox: { owner: options.instanceId, leaseMs: options.outboxLeaseMs },
  });
  const { db, pool } = store.connection;
  return {
    kind: 'postgres' as const,
    store,
    sqlite: undefined,
    kv: createPostgresKvRepo(db),
    probes: {
      answers: store.answers,
      transactionCounts: async () =>
        (await db
          .selectFrom('transaction_counts')
          .select(['relayer_id', 'status', 'count'])
          .execute()) as TransactionCountRow[],
    },
    prepare: () =>
      underStartupLock(pool, async () => {
        const applied = await migrate(db);
        // Instances starting together: exactly one of them logs the versions it applied.
        if (applied.length > 0) options.logger.info({ versions: applied }, 'database migrated');
        const key = await checkStorageKey(db, options.storageKeyVerifier, options.previousStorageKeyVerifier);
        if (key !== 'same')
          options.logger.info(
            { change: key },
            'storage key verifier updated: stored secrets are sealed under the new STORAGE_ENCRYPTION_KEY at this start',
          );
      }),
    startup: <T>(fn: () => Promise<T>) => underStartupLock(pool, fn),
    onOutboxWritten: store.onOutboxWritten,
    onRemoteTransactionWritten: store.onRemoteTransactionWritten,
  };
}
