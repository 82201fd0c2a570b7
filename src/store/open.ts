// Picks the store from the config: PostgreSQL when DATABASE_URL is set (several instances), else SQLite in DATA_DIR.
import type { Store } from '../domain/ports.ts';
import { openDatabase, type Db } from './db.ts';
import { createSqliteStore } from './sqlite/store.ts';
import { createStoreProbes, type StoreProbes } from './probes.ts';
import { createKvRepo, type KvRepo } from './kv-repo.ts';
import { createPostgresStore } from './postgres/store.ts';
import { migrate, underStartupLock } from './postgres/connect.ts';
import { checkStorageKey } from './postgres/instance-checks.ts';
import { createPostgresKvRepo } from './postgres/kv-repo.ts';
import type { TransactionCountRow } from './probes.ts';
import type { Log } from '../domain/notifications/ports.ts';

export interface OpenedStore {
  kind: 'sqlite' | 'postgres';
  store: Store;
  /** The SQLite connection (tests and tools read it); undefined on PostgreSQL. */
  sqlite: Db | undefined;
  kv: KvRepo;
  probes: StoreProbes;
  /**
   * PostgreSQL: migrates and checks the storage key under the start-up advisory lock, so instances starting together
   * migrate once and never race (SQLite migrated when opened). Call before anything reads the store.
   */
  prepare(): Promise<void>;
  /** Runs start-up writes (config seeding) one instance at a time (PostgreSQL: under the same advisory lock). */
  startup<T>(fn: () => Promise<T>): Promise<T>;
  /** Rings `listener` after an outbox write commits on any instance (PostgreSQL NOTIFY); SQLite: never (in-process signal). */
  onOutboxWritten(listener: () => void): () => void;
}

export interface StoreOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Unique per process run: names the leases this instance holds. */
  instanceId: string;
  /** STORAGE_ENCRYPTION_KEY's verifier (secret-box.ts). */
  storageKeyVerifier: string;
  /** STORAGE_ENCRYPTION_KEY_PREVIOUS's verifier during a rotation: a database recorded with it takes the new key. */
  previousStorageKeyVerifier?: string;
  /** How long an outbox event stays leased to the instance delivering it (longer than one attempt). */
  outboxLeaseMs: number;
  logger: Pick<Log, 'info'>;
}

export function openStore(options: StoreOptions): OpenedStore {
  if (options.databaseUrl === undefined) {
    const db = openDatabase(options.dataDir);
    const store = createSqliteStore(db);
    return {
      kind: 'sqlite',
      store,
      sqlite: db,
      kv: createKvRepo(db),
      probes: createStoreProbes(store),
      prepare: async () => undefined,
      startup: (fn) => fn(),
      onOutboxWritten: () => () => undefined,
    };
  }
  const store = createPostgresStore({ url: options.databaseUrl, outbox: { owner: options.instanceId, leaseMs: options.outboxLeaseMs } });
  const { db, pool } = store.connection;
  return {
    kind: 'postgres',
    store,
    sqlite: undefined,
    kv: createPostgresKvRepo(db),
    probes: {
      answers: store.answers,
      transactionCounts: async () => (await db.selectFrom('transaction_counts').select(['relayer_id', 'status', 'count']).execute()) as TransactionCountRow[],
    },
    prepare: () =>
      underStartupLock(pool, async () => {
        const applied = await migrate(db);
        // Instances starting together: exactly one of them logs the versions it applied.
        if (applied.length > 0) options.logger.info({ versions: applied }, 'database migrated');
        const key = await checkStorageKey(db, options.storageKeyVerifier, options.previousStorageKeyVerifier);
        if (key !== 'same') options.logger.info({ change: key }, 'storage key verifier updated: stored secrets are sealed under the new STORAGE_ENCRYPTION_KEY at this start');
      }),
    startup: (fn) => underStartupLock(pool, fn),
    onOutboxWritten: store.onOutboxWritten,
  };
}
