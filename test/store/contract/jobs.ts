// Contract: the jobs repository (upsert per kind and subject, batch claims under a lease, lease-checked completion).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import type { ClaimRequest } from '../../../src/domain/jobs/ports.ts';
import { relayerSeed, txRecord } from './fixtures.ts';

const claimAs = (owner: string, now: number, extra: Partial<ClaimRequest> = {}): ClaimRequest => ({
  owner,
  now,
  limit: 10,
  leaseMs: 1000,
  kinds: ['check'],
  ...extra,
});

export function jobsContract(factory: StoreFactory): void {
  test('schedule is an upsert per (kind, subject): the earliest due time wins unless told to replace', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 500, payload: { hash: '0x1' } });
    await repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 900 });
    let job = (await repos.jobs.get('check', 'tx-1'))!;
    assert.deepEqual(
      [job.dueAt, job.payload, job.generation, job.attempts, job.leaseOwner],
      [500, { hash: '0x1' }, 2, 0, null],
    );
    await repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 200, payload: { hash: '0x2' } });
    job = (await repos.jobs.get('check', 'tx-1'))!;
    assert.deepEqual([job.dueAt, job.payload], [200, { hash: '0x2' }]);
    await repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 700, replace: true });
    job = (await repos.jobs.get('check', 'tx-1'))!;
    assert.deepEqual([job.dueAt, job.payload], [700, null]);
    await repos.jobs.schedule({ kind: 'resubmit', subject: 'tx-1', dueAt: 1 });
    assert.equal((await repos.jobs.stats(0)).length, 2, 'another kind is another job');
  });

  test('in a transaction, schedules of one job apply in order beside the records written with them, and read back', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    const seen = await store.atomically(async (tx) => {
      await tx.transactions.insert(txRecord('r1', 'a', 1000, 'sent'), 1000, 0);
      await tx.jobs.schedule({ kind: 'check', subject: 'r1', dueAt: 500, payload: { n: 1 } });
      await tx.jobs.schedule({ kind: 'check', subject: 'r1', dueAt: 900 });
      await tx.jobs.schedule({ kind: 'check', subject: 'r2', dueAt: 100 });
      await tx.transactions.insert(txRecord('r1', 'b', 1001, 'sent'), 1001, 1);
      await tx.jobs.schedule({ kind: 'check', subject: 'r1', dueAt: 300, replace: true });
      return tx.jobs.get('check', 'r1');
    });
    assert.deepEqual(
      [seen?.dueAt, seen?.payload, seen?.generation],
      [300, null, 3],
      'the earliest due time, then replaced with its payload',
    );
    assert.equal((await store.repos.jobs.get('check', 'r2'))?.dueAt, 100);
    assert.deepEqual(
      (await store.repos.transactions.listUnfinished('r1', 10)).map((s) => s.record.id),
      ['a', 'b'],
    );
    assert.equal(await store.repos.transactions.count('r1', 'sent'), 2);
  });

  test('claim leases due jobs of the given kinds, oldest first, up to the limit', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'late', dueAt: 300 });
    await repos.jobs.schedule({ kind: 'check', subject: 'early', dueAt: 100 });
    await repos.jobs.schedule({ kind: 'check', subject: 'future', dueAt: 5000 });
    await repos.jobs.schedule({ kind: 'other', subject: 'x', dueAt: 0 });
    await repos.jobs.schedule({ kind: 'check', subject: 'mid', dueAt: 200 });
    const first = await repos.jobs.claim(claimAs('A', 1000, { limit: 2 }));
    assert.deepEqual(
      first.map((j) => j.subject),
      ['early', 'mid'],
    );
    assert.deepEqual([first[0]!.leaseOwner, first[0]!.leaseExpiresAt, first[0]!.claims], ['A', 2000, 1]);
    const second = await repos.jobs.claim(claimAs('B', 1000));
    assert.deepEqual(
      second.map((j) => j.subject),
      ['late'],
      'leased jobs and jobs not due are left alone',
    );
    assert.deepEqual(await repos.jobs.claim(claimAs('B', 1000)), []);
    assert.deepEqual(await repos.jobs.claim(claimAs('B', 1000, { kinds: [] })), []);
    assert.deepEqual(
      (await repos.jobs.claim(claimAs('B', 1000, { kinds: ['other'] }))).map((j) => j.subject),
      ['x'],
    );
  });

  test('concurrent claims never lease one job twice', async (t) => {
    const { repos } = await factory(t);
    for (let i = 0; i < 50; i++) await repos.jobs.schedule({ kind: 'check', subject: `s${i}`, dueAt: i });
    const batches = await Promise.all(
      ['A', 'B', 'C', 'D', 'E', 'F'].map((owner) => repos.jobs.claim(claimAs(owner, 1000, { limit: 12 }))),
    );
    const subjects = batches.flat().map((j) => j.subject);
    assert.equal(subjects.length, 50);
    assert.equal(new Set(subjects).size, 50);
  });

  test('finish deletes the job; with rescheduleAt it stays, due then, lease cleared and attempts reset', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    await repos.jobs.schedule({ kind: 'check', subject: 'b', dueAt: 0 });
    const [a, b] = await repos.jobs.claim(claimAs('A', 100));
    assert.equal(await repos.jobs.retry(b!, 100, 'boom'), true);
    const [b2] = await repos.jobs.claim(claimAs('A', 200));
    assert.equal(b2!.attempts, 1);
    assert.equal(await repos.jobs.finish(a!), true);
    assert.equal(await repos.jobs.get('check', 'a'), undefined);
    assert.equal(await repos.jobs.finish(b2!, 900), true);
    const kept = (await repos.jobs.get('check', 'b'))!;
    assert.deepEqual(
      [kept.dueAt, kept.attempts, kept.leaseOwner, kept.leaseExpiresAt, kept.lastError],
      [900, 0, null, null, null],
    );
    assert.deepEqual(await repos.jobs.claim(claimAs('A', 899)), []);
    assert.equal((await repos.jobs.claim(claimAs('A', 900))).length, 1);
  });

  test('retry releases the lease with attempts + 1, the error kept and the new due time', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    const [job] = await repos.jobs.claim(claimAs('A', 100));
    assert.equal(await repos.jobs.retry(job!, 5000, 'rpc down'), true);
    const row = (await repos.jobs.get('check', 'a'))!;
    assert.deepEqual([row.attempts, row.lastError, row.dueAt, row.leaseOwner], [1, 'rpc down', 5000, null]);
    assert.deepEqual(await repos.jobs.claim(claimAs('A', 4999)), []);
    assert.equal(await repos.jobs.retry(job!, 1, 'again'), false, 'the lease was given up');
  });

  test('an expired lease is claimed again by another owner, and the old holder can no longer act on it', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    const [stale] = await repos.jobs.claim(claimAs('crashed', 100, { leaseMs: 500 }));
    assert.deepEqual(await repos.jobs.claim(claimAs('B', 599)), [], 'not before the lease expires');
    const [fresh] = await repos.jobs.claim(claimAs('B', 600));
    assert.deepEqual([fresh!.leaseOwner, fresh!.claims], ['B', 2]);
    assert.equal(await repos.jobs.finish(stale!), false);
    assert.equal(await repos.jobs.retry(stale!, 0, 'late'), false);
    assert.equal(await repos.jobs.renew(stale!, 10_000), false);
    assert.equal(await repos.jobs.release(stale!), false);
    assert.equal((await repos.jobs.get('check', 'a'))!.leaseOwner, 'B');
    assert.equal(await repos.jobs.finish(fresh!), true);
  });

  test('the same owner claiming its own expired job again holds a new lease; the old one is void', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    const [first] = await repos.jobs.claim(claimAs('A', 100, { leaseMs: 10 }));
    const [second] = await repos.jobs.claim(claimAs('A', 200));
    assert.equal(await repos.jobs.finish(first!), false);
    assert.equal(await repos.jobs.finish(second!), true);
  });

  test('renew extends the lease; release gives the job back without counting an attempt', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    const [job] = await repos.jobs.claim(claimAs('A', 100, { leaseMs: 100 }));
    assert.equal(await repos.jobs.renew(job!, 5000), true);
    assert.deepEqual(await repos.jobs.claim(claimAs('B', 1000)), [], 'renewed: still leased');
    assert.equal(await repos.jobs.release(job!), true);
    const row = (await repos.jobs.get('check', 'a'))!;
    assert.deepEqual([row.leaseOwner, row.attempts, row.dueAt], [null, 0, 0]);
    assert.equal((await repos.jobs.claim(claimAs('B', 1000))).length, 1);
  });

  test('leaseOwners lists who holds a live lease; releaseAllOf gives back every job of one owner, and its holder loses them', async (t) => {
    const { repos } = await factory(t);
    for (const subject of ['a', 'b', 'c']) await repos.jobs.schedule({ kind: 'check', subject, dueAt: 0 });
    const heldByA = await repos.jobs.claim(claimAs('A', 100, { limit: 2 }));
    await repos.jobs.claim(claimAs('B', 100));
    assert.deepEqual((await repos.jobs.leaseOwners(200)).sort(), ['A', 'B']);
    assert.deepEqual(await repos.jobs.leaseOwners(5000), [], "expired leases are nobody's");
    assert.equal(await repos.jobs.releaseAllOf('A'), 2);
    assert.deepEqual(await repos.jobs.leaseOwners(200), ['B']);
    assert.equal(await repos.jobs.finish(heldByA[0]!), false, 'the dead holder cannot finish what was given back');
    const again = await repos.jobs.claim(claimAs('C', 200));
    assert.deepEqual(again.map((j) => j.subject).sort(), heldByA.map((j) => j.subject).sort());
  });

  test('a schedule that lands while the job is leased is not lost when the holder finishes', async (t) => {
    const store = await factory(t);
    const { jobs } = store.repos;
    await jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0, payload: { n: 1 } });
    const [job] = await jobs.claim(claimAs('A', 100));
    // E.g. a replace through the API wants an immediate check while the current one runs.
    await store.atomically(async (tx) =>
      tx.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 150, payload: { n: 2 }, replace: true }),
    );
    assert.deepEqual(await jobs.claim(claimAs('B', 1000)), [], 'still leased: never two runs at once');
    assert.equal(await jobs.finish(job!), true);
    const row = (await jobs.get('check', 'a'))!;
    assert.deepEqual([row.dueAt, row.payload, row.leaseOwner], [150, { n: 2 }, null]);
    const [again] = await jobs.claim(claimAs('B', 1000));
    assert.deepEqual(again!.payload, { n: 2 });
    // The same holds for a reschedule and a retry by a holder that read the older generation.
    await jobs.schedule({ kind: 'check', subject: 'a', dueAt: 300, replace: true });
    assert.equal(await jobs.finish(again!, 99_999), true);
    assert.equal((await jobs.get('check', 'a'))!.dueAt, 300);
    const [third] = await jobs.claim(claimAs('C', 1000));
    await jobs.schedule({ kind: 'check', subject: 'a', dueAt: 400, replace: true });
    assert.equal(await jobs.retry(third!, 99_999, 'failed'), true);
    const retried = (await jobs.get('check', 'a'))!;
    assert.deepEqual([retried.dueAt, retried.lastError], [400, 'failed']);
  });

  test('cancel removes a job, leased or not; the holder then finishes nothing', async (t) => {
    const { repos } = await factory(t);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 0 });
    await repos.jobs.schedule({ kind: 'check', subject: 'b', dueAt: 0 });
    const [a] = await repos.jobs.claim(claimAs('A', 100, { limit: 1 }));
    assert.equal(await repos.jobs.cancel('check', 'a'), true);
    assert.equal(await repos.jobs.cancel('check', 'b'), true);
    assert.equal(await repos.jobs.cancel('check', 'b'), false);
    assert.equal(await repos.jobs.finish(a!), false);
    assert.equal(await repos.jobs.get('check', 'a'), undefined, 'a canceled job does not come back');
  });

  test('nextDueAt ignores leased jobs and other kinds; stats count per kind with the oldest lag', async (t) => {
    const { repos } = await factory(t);
    assert.equal(await repos.jobs.nextDueAt(['check']), null);
    await repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 100 });
    await repos.jobs.schedule({ kind: 'check', subject: 'b', dueAt: 400 });
    await repos.jobs.schedule({ kind: 'check', subject: 'c', dueAt: 9000 });
    await repos.jobs.schedule({ kind: 'other', subject: 'x', dueAt: 50 });
    assert.equal(await repos.jobs.nextDueAt(['check']), 100);
    await repos.jobs.claim(claimAs('A', 100, { limit: 1 }));
    assert.equal(await repos.jobs.nextDueAt(['check']), 400);
    assert.equal(await repos.jobs.nextDueAt(['check', 'other']), 50);
    assert.equal(await repos.jobs.nextDueAt([]), null);
    assert.deepEqual(await repos.jobs.stats(1000), [
      { kind: 'check', scheduled: 3, due: 1, running: 1, lagMs: 600 },
      { kind: 'other', scheduled: 1, due: 1, running: 0, lagMs: 950 },
    ]);
  });
}
