// The SQLite side of src/store/open.ts: the embedded store in DATA_DIR, migrated when opened; one instance per file,
// so start-up needs no lock and no other instance writes.
import { openDatabase } from './db.ts';
import { createSqliteStore } from './store.ts';
import { createKvRepo } from './kv-repo.ts';
import { createStoreProbes } from '../probes.ts';

export function openSqlite(dataDir: string) {
  const db = openDatabase(dataDir);
  const store = createSqliteStore(db);
  return {
    kind: 'sqlite' as const,
    store,
    sqlite: db,
    kv: createKvRepo(db),
    probes: createStoreProbes(store),
    prepare: async () => undefined,
    startup: <T>(fn: () => Promise<T>) => fn(),
    onOutboxWritten: () => () => undefined,
    onRemoteTransactionWritten: () => () => undefined,
  };
}
