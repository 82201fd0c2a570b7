// Two stores on one PostgreSQL database, as two instances see it: NOTIFY sent in the writing transaction wakes the
// other's scheduler and dispatcher (never for a rollback), and a job leased by an instance that died is finished
// by the other once the lease lapses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/store.ts';
import { migrate } from '../../src/store/postgres/db.ts';
import { createJobScheduler } from '../../src/domain/jobs/scheduler.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { eventRow } from './contract/fixtures.ts';
import { recordingLog, waitFor } from '../jobs/support.ts';

const available = await postgresReachable();
const skip = available ? undefined : 'no PostgreSQL server answers';
const databaseUrl = available ? (await createTestDatabase('relaybox_instances')).url : '';
if (available) {
  const s = createPostgresStore({ url: databaseUrl, outbox: { owner: 'migrator', leaseMs: 1000 } });
  await migrate(s.db);
  await s.close();
}

function open(t: import('node:test').TestContext, owner = `i-${randomUUID().slice(0, 8)}`): PostgresStore {
  const store = createPostgresStore({ url: databaseUrl, outbox: { owner, leaseMs: 30_000 }, max: 4 });
  t.after(() => store.close());
  return store;
}

test("a commit on one instance wakes the other's job and outbox listeners; a rollback wakes nobody", {
  skip,
}, async (t) => {
  const writer = open(t);
  const other = open(t);
  let jobs = 0;
  let outbox = 0;
  other.onJobsScheduled(() => jobs++);
  other.onOutboxWritten(() => outbox++);
  await new Promise((r) => setTimeout(r, 200)); // the other's LISTEN is in place
  await assert.rejects(
    writer.atomically(async (tx) => {
      await tx.jobs.schedule({ kind: 'wake', subject: 'rolled-back', dueAt: 0 });
      await tx.webhookEvents.insert(eventRow(`rb-${randomUUID()}`, 'hook', 'tx-rb', 0));
      throw new Error('roll back');
    }),
  );
  await writer.atomically(async (tx) => {
    await tx.jobs.schedule({ kind: 'wake', subject: 'committed', dueAt: 0 });
    await tx.webhookEvents.insert(eventRow(`c-${randomUUID()}`, 'hook', 'tx-c', 0));
  });
  await waitFor(() => jobs > 0 && outbox > 0, 'the other instance to be woken');
  assert.equal(await other.repos.jobs.get('wake', 'rolled-back'), undefined);
  // One NOTIFY per channel per transaction at most (PostgreSQL folds duplicates); never one for the rollback.
  assert.equal(jobs, 1);
  assert.equal(outbox, 1);
});

test('a job leased by an instance that died is run by another instance once the lease lapses', { skip }, async (t) => {
  const dead = open(t);
  const alive = open(t);
  const kind = `handoff-${randomUUID().slice(0, 8)}`;
  await dead.repos.jobs.schedule({ kind, subject: 'tx-1', dueAt: 0, payload: { n: 1 } });
  // The dying instance claimed it (short lease) and never finished: kill -9 leaves exactly this row behind.
  const [claimed] = await dead.repos.jobs.claim({
    owner: 'dead-instance',
    now: Date.now(),
    limit: 1,
    leaseMs: 1500,
    kinds: [kind],
  });
  assert.ok(claimed);
  await dead.close();
  const ran: unknown[] = [];
  const scheduler = createJobScheduler({
    jobs: alive.repos.jobs,
    owner: 'alive-instance',
    logger: recordingLog(),
    wakeups: alive.onJobsScheduled,
    pollIntervalMs: 200,
  });
  scheduler.register(kind, async (job) => {
    ran.push(job.payload);
  });
  scheduler.start();
  t.after(() => scheduler.close());
  await waitFor(() => ran.length === 1, 'the other instance to run the orphaned job');
  assert.deepEqual(ran, [{ n: 1 }]);
  await waitFor(async () => (await alive.repos.jobs.get(kind, 'tx-1')) === undefined, 'the job to be finished');
});
