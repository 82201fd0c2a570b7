// The repository contract run against PostgreSQL (a database of this run's own, a fresh schema per test).
// Skipped when no server answers (see test/support/postgres.ts); always run in CI.
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresStore } from '../../src/store/postgres/store.ts';
import { migrate } from '../../src/store/postgres/db.ts';
import { runStoreContract } from './contract/index.ts';
import { relayerSeed } from './contract/fixtures.ts';
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
  await store.repos.relayers.seed([relayerSeed('a'), relayerSeed('b')]);
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
      const row = await tx.relayers.getForUpdate(first);
      if (runs[key] === 1) await bothHold();
      await tx.relayers.getForUpdate(second);
      assert.ok(await tx.relayers.advance(first, row!.next_nonce, row!.next_nonce + 1, 0));
      return key;
    });
  assert.deepEqual(await Promise.all([lockBoth('a', 'b', 'ab'), lockBoth('b', 'a', 'ba')]), ['ab', 'ba']);
  assert.equal(runs.ab + runs.ba, 3, `one of them ran again: ${JSON.stringify(runs)}`);
  assert.deepEqual([(await store.repos.relayers.get('a'))!.next_nonce, (await store.repos.relayers.get('b'))!.next_nonce], [1, 1], 'both committed once');
});
