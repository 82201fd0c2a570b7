// Picks the store from the config: PostgreSQL when DATABASE_URL is set (several instances), else SQLite in DATA_DIR.
import type { Store } from '../domain/ports.ts';
import type { Db } from './sqlite/db.ts';
import { openSqlite } from './sqlite/open.ts';
import type { StoreProbes } from './probes.ts';
import type { KvRepo } from '../domain/kv/ports.ts';
import type { Log } from '../domain/log.ts';

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
  /**
   * Rings `listener` for each transaction row another instance commits (PostgreSQL NOTIFY): its id and new version.
   * SQLite: never (one instance; its own changes are published in process).
   */
  onRemoteTransactionWritten(listener: (id: string, version: number) => void): () => void;
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

export async function openStore(options: StoreOptions): Promise<OpenedStore> {
  if (options.databaseUrl === undefined) return openSqlite(options.dataDir);
  // Loaded only here: an instance on SQLite never pays for Kysely and pg (measured in docs/performance.md).
  const { openPostgres } = await import('./postgres/open.ts');
  return openPostgres({ ...options, databaseUrl: options.databaseUrl });
}
