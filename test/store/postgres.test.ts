// The repository contract run against PostgreSQL (a database of this run's own, a fresh schema per test).
// Skipped when no server answers (see test/support/postgres.ts); always run in CI.
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresStore } from '../../src/store/postgres/store.ts';
import { migrate } from '../../src/store/postgres/connect.ts';
import { runStoreContract } from './contract/index.ts';
import { createTestDatabase, createTestSchema, postgresReachable } from '../support/postgres.ts';

const available = await postgresReachable();
const databaseUrl = available ? (await createTestDatabase('relaybox_contract')).url : '';

const skip = available ? undefined : 'no PostgreSQL server answers (set DATABASE_URL or start one on 127.0.0.1:5432)';

/** A migrated store on a schema of its own, closed and dropped when the test ends. */
async function freshStore(t: TestContext) {
  const schema = await createTestSchema(databaseUrl);
  const store = createPostgresStore({ url: schema.url, outbox: { owner: `test-${randomUUID()}`, leaseMs: 30_000 }, max: 5 });
  await migrate(store.db);
  t.after(async () => {
    await store.close();
    await schema.drop();
  });
  return store;
}

runStoreContract('PostgreSQL', freshStore, skip);

test('PostgreSQL store: a transaction chosen as a deadlock victim runs again and both commit', { skip }, async (t) => {
  const store = await freshStore(t);
  for (const id of ['a', 'b']) await store.repos.jobs.schedule({ kind: 'k', subject: id, dueAt: 0 });
  // Two transactions lock the same two rows in opposite orders, each waiting until the other holds its first row.
  let held = 0;
  const bothHold = async () => {
    held++;
    while (held < 2) await new Promise((r) => setTimeout(r, 5));
  };
  const runs = { ab: 0, ba: 0 };
  const lockBoth = (first: string, second: string, key: 'ab' | 'ba') =>
    store.atomically(async (tx) => {
      runs[key]++;
      await tx.jobs.schedule({ kind: 'k', subject: first, dueAt: 1, replace: true });
      if (runs[key] === 1) await bothHold();
      await tx.jobs.schedule({ kind: 'k', subject: second, dueAt: 1, replace: true });
      return key;
    });
  assert.deepEqual(await Promise.all([lockBoth('a', 'b', 'ab'), lockBoth('b', 'a', 'ba')]), ['ab', 'ba']);
  assert.equal(runs.ab + runs.ba, 3, `one of them ran again: ${JSON.stringify(runs)}`);
  assert.equal((await store.repos.jobs.get('k', 'a'))!.generation, 3);
});
