// The repository contract run against the embedded SQLite store (a real file per test).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createSqliteStore } from '../../src/store/sqlite/store.ts';
import { runStoreContract } from './contract/index.ts';

runStoreContract('SQLite', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-store-'));
  const store = createSqliteStore(openDatabase(dir));
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
});
