// The repository contract run against PostgreSQL (a database of this run's own, a fresh schema per test).
// Skipped when no server answers (see test/support/postgres.ts); always run in CI.
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresStore } from '../../src/store/postgres/store.ts';
import { migrate } from '../../src/store/postgres/db.ts';
import { runStoreContract } from './contract/index.ts';
import { relayerSeed, txRecord } from './contract/fixtures.ts';
import { createTestDatabase, createTestSchema, postgresReachable } from '../support/postgres.ts';

const available = await postgresReachable();
const databaseUrl = available ? (await createTestDatabase('relaybox_contract')).url : '';

const skip = available ? undefined : 'no PostgreSQL server answers (set DATABASE_URL or start one on 127.0.0.1:5432)';

/** A migrated store on a schema of its own, closed and dropped when the test ends. */
async function freshStore(t: TestContext) {
  const schema = await createTestSchema(databaseUrl);
  const store = createPostgresStore({
    url: schema.url,
    outbox: { owner: `test-${randomUUID()}`, leaseMs: 30_000 },
    max: 5,
  });
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
  assert.deepEqual(
    [(await store.repos.relayers.get('a'))!.next_nonce, (await store.repos.relayers.get('b'))!.next_nonce],
    [1, 1],
    'both committed once',
  );
});

test('PostgreSQL store: the funds ledger is in no deadlock: a status change releasing funds and a send reserving them, each holding the row the other wants next', {
  skip,
}, async (t) => {
  const store = await freshStore(t);
  await store.repos.relayers.seed([relayerSeed('r1', { notification_id: null })]);
  const record = { ...txRecord('r1', 'tx-1', 1000, 'submitted'), nonce: 0 };
  await store.repos.transactions.insert(record, 1000, 0);
  const read = (await store.repos.relayers.get('r1'))!;
  // The shape two instances met under load: one writer releases a final send's funds and then writes a record, the
  // other holds that record and then reserves funds for a send. With the ledger row locked where it was first
  // touched, that is a cycle PostgreSQL breaks after deadlock_timeout (a second each, and a retry).
  const signal = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    return { open, opened };
  };
  const released = signal();
  const recordHeld = signal();
  const runs = { release: 0, send: 0 };
  const release = store.atomically(async (tx) => {
    runs.release++;
    await tx.transactions.moveFunds('r1', -5n, 5n);
    released.open();
    await recordHeld.opened;
    // Read at version 1 before the send wrote it: this write waits for the send's commit, then finds it stale.
    return tx.transactions.update({ ...record, status: 'mined' }, 'submitted', 1);
  });
  const send = store.atomically(async (tx) => {
    runs.send++;
    assert.ok(await tx.transactions.update({ ...record, status: 'submitted', hashes: ['0x01'] }, 'submitted', 1));
    recordHeld.open();
    await released.opened;
    return tx.relayers.advanceFrom(
      'r1',
      read,
      { next_nonce: read.next_nonce + 1, last_created_ms: read.last_created_ms + 1 },
      7n,
    );
  });
  const [mined, moved] = await Promise.all([release, send]);
  assert.deepEqual(runs, { release: 1, send: 1 }, 'neither was chosen as a deadlock victim and run again');
  assert.equal(
    mined,
    false,
    'the status change found the record moved on (an optimistic write; its writer reads again)',
  );
  assert.deepEqual(
    moved?.funds,
    { reserved: 7n, released: 0n },
    'the send was admitted against the ledger as committed before it',
  );
  assert.deepEqual(
    await store.repos.transactions.funds('r1'),
    { reserved: 2n, released: 5n },
    'both moves applied, exactly once',
  );
});

test('PostgreSQL store: a reserve admitted against a ledger that grew before its commit runs again against the new one', {
  skip,
  timeout: 60_000,
}, async (t) => {
  const store = await freshStore(t);
  await store.repos.relayers.seed([relayerSeed('r1', { notification_id: null })]);
  const read = (await store.repos.relayers.get('r1'))!;
  const seen: bigint[] = [];
  let grown = false;
  const moved = await store.atomically(async (tx) => {
    const row = await tx.relayers.advanceFrom(
      'r1',
      read,
      { next_nonce: read.next_nonce + 1, last_created_ms: read.last_created_ms + 1 },
      10n,
    );
    seen.push(row!.funds!.reserved);
    // Another writer (a replacement raising its hold) commits between this send's admission and its commit.
    if (!grown) {
      grown = true;
      await store.connection.pool.query(
        "INSERT INTO relayer_funds (relayer_id, reserved, released) VALUES ('r1', 4, 0)",
      );
    }
    return row;
  });
  assert.deepEqual(
    seen,
    [10n, 14n],
    'admitted first against 0 reserved, then, run again, against the 4 that were added',
  );
  assert.deepEqual(moved?.funds, { reserved: 14n, released: 0n });
  assert.deepEqual(await store.repos.transactions.funds('r1'), { reserved: 14n, released: 0n });
});
