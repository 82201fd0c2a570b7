// The job scheduler over a real SQLite store: runs due work, retries failures, keeps leases, survives restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimedJob } from '../../src/domain/jobs/ports.ts';
import { dataDir, openStore, scheduler, sleep, waitFor } from './support.ts';

test('a due job runs once and is gone; a job due later does not run before its time', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store);
  const ran: Array<{ subject: string; at: number; dueAt: number; payload: unknown }> = [];
  s.register(
    'check',
    async (job) => void ran.push({ subject: job.subject, at: Date.now(), dueAt: job.dueAt, payload: job.payload }),
  );
  const later = Date.now() + 300;
  await store.atomically(async (tx) => {
    await tx.jobs.schedule({ kind: 'check', subject: 'now', dueAt: Date.now(), payload: { hash: '0xabc' } });
    await tx.jobs.schedule({ kind: 'check', subject: 'later', dueAt: later });
  });
  s.start();
  await waitFor(() => ran.length === 2, 'both jobs');
  assert.deepEqual(
    ran.map((r) => r.subject),
    ['now', 'later'],
  );
  assert.deepEqual(ran[0]!.payload, { hash: '0xabc' });
  assert.ok(ran[1]!.at >= later, 'not before its due time');
  await waitFor(async () => (await store.repos.jobs.stats(Date.now())).length === 0, 'the table to empty');
  await sleep(120);
  assert.equal(ran.length, 2, 'each ran once');
});

test('a job scheduled in a committed transaction is picked up at once, without waiting for the poll', async (t) => {
  const store = openStore(t, dataDir(t));
  // A poll far longer than the test's own limit: only the after-commit wake-up can run the job in time.
  const s = scheduler(t, store, { pollIntervalMs: 60_000 });
  let ran = 0;
  s.register('check', async () => void ran++);
  s.start();
  await sleep(20);
  await store.atomically(async (tx) => tx.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now() }));
  await waitFor(() => ran === 1, 'the job', 5_000);
});

test('a throwing handler is retried with backoff, logged each time, and never dropped', async (t) => {
  const store = openStore(t, dataDir(t));
  const failed: string[] = [];
  const s = scheduler(t, store, { observer: { failed: (kind) => failed.push(kind) } });
  const seen: Array<{ attempts: number; lastError: string | null }> = [];
  s.register('check', async (job) => {
    seen.push({ attempts: job.attempts, lastError: job.lastError });
    if (seen.length < 4) throw new Error(`rpc down #${seen.length}`);
  });
  await store.repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now() });
  s.start();
  await waitFor(() => seen.length === 4, 'the fourth attempt');
  assert.deepEqual(seen, [
    { attempts: 0, lastError: null },
    { attempts: 1, lastError: 'rpc down #1' },
    { attempts: 2, lastError: 'rpc down #2' },
    { attempts: 3, lastError: 'rpc down #3' },
  ]);
  await waitFor(async () => (await store.repos.jobs.get('check', 'tx-1')) === undefined, 'the job to finish');
  const errors = s.log.lines.filter((l) => l.msg === 'job failed; will retry');
  assert.equal(errors.length, 3);
  assert.deepEqual(
    errors.map((l) => [l.kind, l.subject, l.attempts, l.level]),
    [
      ['check', 'tx-1', 1, 'error'],
      ['check', 'tx-1', 2, 'error'],
      ['check', 'tx-1', 3, 'error'],
    ],
  );
  assert.ok(errors.every((l) => typeof l.retryInMs === 'number' && l.retryInMs >= 5 && l.retryInMs <= 40));
  assert.deepEqual(failed, ['check', 'check', 'check']);
});

test('rescheduleAt keeps the job and runs it again then', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store);
  const runs: number[] = [];
  s.register('check', async () => {
    runs.push(Date.now());
    return runs.length < 3 ? { rescheduleAt: Date.now() + 30 } : undefined;
  });
  await store.repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now() });
  s.start();
  await waitFor(() => runs.length === 3, 'three runs');
  assert.ok(runs[1]! - runs[0]! >= 30 && runs[2]! - runs[1]! >= 30, 'each run waits for its rescheduled time');
  await waitFor(async () => (await store.repos.jobs.get('check', 'tx-1')) === undefined, 'the job to finish');
});

test('work scheduled while the job runs is not lost: the job runs again with the new payload', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store);
  const payloads: unknown[] = [];
  let release!: () => void;
  const firstRunMayEnd = new Promise<void>((resolve) => (release = resolve));
  s.register('check', async (job) => {
    payloads.push(job.payload);
    if (payloads.length === 1) await firstRunMayEnd;
  });
  await store.repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now(), payload: { hash: 'old' } });
  s.start();
  await waitFor(() => payloads.length === 1, 'the first run');
  // A replace through the API asks for a check of the new hash while the first check is running.
  await store.atomically(async (tx) =>
    tx.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now(), payload: { hash: 'new' }, replace: true }),
  );
  await sleep(60);
  assert.equal(payloads.length, 1, 'never two runs of one job at once');
  release();
  await waitFor(() => payloads.length === 2, 'the second run');
  assert.deepEqual(payloads, [{ hash: 'old' }, { hash: 'new' }]);
});

test('at most `concurrency` handlers run at once, and every job runs', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store, { concurrency: 3, batchSize: 2 });
  let active = 0;
  let peak = 0;
  const done = new Set<string>();
  s.register('check', async (job) => {
    peak = Math.max(peak, ++active);
    await sleep(5);
    active--;
    done.add(job.subject);
  });
  await store.atomically(async (tx) => {
    for (let i = 0; i < 30; i++) await tx.jobs.schedule({ kind: 'check', subject: `s${i}`, dueAt: Date.now() });
  });
  s.start();
  await waitFor(() => done.size === 30, 'every job');
  assert.ok(peak <= 3, `peak ${peak}`);
  assert.ok(peak >= 2, 'and they did run concurrently');
});

test('a slow handler keeps its lease, so another instance sharing the store never runs the job meanwhile', async (t) => {
  const store = openStore(t, dataDir(t));
  // Renewed every third of it: a loaded machine may hold a timer back for a second; a lease of 900 ms left 600 ms.
  const leaseMs = 2_000;
  let running = 0;
  let overlap = false;
  const runs: string[] = [];
  const handler = (name: string) => async (job: ClaimedJob) => {
    if (++running > 1) overlap = true;
    runs.push(name);
    // Over twice the lease: only renewals keep the other instance off it.
    if (runs.length === 1) await sleep(leaseMs * 2.5);
    running--;
    void job;
  };
  const a = scheduler(t, store, { leaseMs, owner: 'A' });
  a.register('check', handler('A'));
  await store.repos.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: Date.now() });
  a.start();
  await waitFor(() => runs.length === 1, 'the first run');
  const b = scheduler(t, store, { leaseMs, owner: 'B', pollIntervalMs: 20 });
  b.register('check', handler('B'));
  b.start();
  await waitFor(() => running === 0, 'the slow run to end', 30_000);
  await sleep(100);
  assert.equal(overlap, false);
  assert.deepEqual(runs, ['A']);
  assert.equal(await store.repos.jobs.get('check', 'tx-1'), undefined);
});

test("a crashed instance's jobs are claimed again once their lease expires", async (t) => {
  const store = openStore(t, dataDir(t));
  for (const subject of ['a', 'b', 'c']) await store.repos.jobs.schedule({ kind: 'check', subject, dueAt: Date.now() });
  // An instance that claimed them and died: nobody renews or finishes its leases.
  const stolen = await store.repos.jobs.claim({
    owner: 'crashed',
    now: Date.now(),
    limit: 2,
    leaseMs: 200,
    kinds: ['check'],
  });
  assert.equal(stolen.length, 2);
  const s = scheduler(t, store);
  const ran: string[] = [];
  s.register('check', async (job) => void ran.push(`${job.subject}:${job.claims}`));
  s.start();
  await waitFor(() => ran.length === 3, 'all three jobs');
  assert.deepEqual(ran.sort(), ['a:2', 'b:2', 'c:1']);
});

test('a restart resumes every due job from the file', async (t) => {
  const dir = dataDir(t);
  const first = openStore(t, dir);
  await first.atomically(async (tx) => {
    for (let i = 0; i < 50; i++)
      await tx.jobs.schedule({ kind: 'check', subject: `tx-${i}`, dueAt: Date.now() + (i % 5) * 20 });
  });
  // One was running when the process died: its lease lapses after the restart.
  await first.repos.jobs.claim({
    owner: 'previous-run',
    now: Date.now() + 100,
    limit: 1,
    leaseMs: 150,
    kinds: ['check'],
  });
  await first.close();

  const second = openStore(t, dir);
  const s = scheduler(t, second);
  const ran = new Set<string>();
  s.register('check', async (job) => void ran.add(job.subject));
  s.start();
  await waitFor(() => ran.size === 50, 'all 50 jobs after the restart');
  await waitFor(async () => (await second.repos.jobs.stats(Date.now())).length === 0, 'the table to empty');
});

test('10,000 due jobs drain, each run exactly once', async (t) => {
  const store = openStore(t, dataDir(t));
  const now = Date.now();
  await store.atomically(async (tx) => {
    for (let i = 0; i < 10_000; i++)
      await tx.jobs.schedule({ kind: 'check', subject: `tx-${i}`, dueAt: now - (i % 100) });
  });
  const s = scheduler(t, store, { concurrency: 64 });
  const counts = new Map<string, number>();
  let claimed = 0;
  let finished = 0;
  s.register('check', async (job) => {
    counts.set(job.subject, (counts.get(job.subject) ?? 0) + 1);
  });
  const observed = scheduler(t, store, {
    concurrency: 64,
    observer: { claimed: () => claimed++, finished: () => finished++ },
  });
  observed.register('check', async (job) => {
    counts.set(job.subject, (counts.get(job.subject) ?? 0) + 1);
  });
  s.start();
  observed.start();
  await waitFor(async () => (await store.repos.jobs.stats(Date.now())).length === 0, 'the table to empty', 60_000);
  await s.close();
  await observed.close();
  assert.equal(counts.size, 10_000);
  assert.ok(
    [...counts.values()].every((n) => n === 1),
    'no job ran twice, though two schedulers shared the table',
  );
  assert.equal(claimed, finished);
  assert.ok(claimed > 0 && claimed < 10_000, 'both schedulers took a share');
});

test('kinds without a handler here are left in the table for an instance that has one', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store);
  const ran: string[] = [];
  s.register('check', async (job) => void ran.push(job.kind));
  await store.repos.jobs.schedule({ kind: 'check', subject: 'a', dueAt: Date.now() });
  await store.repos.jobs.schedule({ kind: 'solana.check', subject: 'b', dueAt: Date.now() });
  s.start();
  await waitFor(() => ran.length === 1, 'the check job');
  await sleep(120);
  assert.deepEqual(ran, ['check']);
  assert.equal((await store.repos.jobs.get('solana.check', 'b'))!.leaseOwner, null);
  assert.throws(() => s.register('check', async () => undefined), /already registered/);
});

test('close waits for running handlers, then aborts the ones past its bound and gives their jobs back', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store, { closeTimeoutMs: 150 });
  let quickDone = false;
  let aborted: unknown;
  s.register('quick', async () => {
    await sleep(40);
    quickDone = true;
  });
  s.register(
    'stuck',
    (_job, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((aborted = ctx.signal.reason)))),
  );
  await store.repos.jobs.schedule({ kind: 'quick', subject: 'q', dueAt: Date.now() });
  await store.repos.jobs.schedule({ kind: 'stuck', subject: 's', dueAt: Date.now() });
  s.start();
  await waitFor(() => s.running === 2, 'both handlers to start');
  await s.close();
  assert.equal(quickDone, true, 'a handler within the bound finished');
  assert.ok(aborted instanceof Error);
  const stuck = (await store.repos.jobs.get('stuck', 's'))!;
  assert.equal(stuck.leaseOwner, null, 'released: the next instance takes it at once');
  assert.equal(stuck.attempts, 0);
  assert.equal(await store.repos.jobs.get('quick', 'q'), undefined);
  assert.ok(s.log.lines.some((l) => l.msg.startsWith('jobs still running at close were released')));
});

test('a handler that never settles is aborted after the handler timeout and its job retried', async (t) => {
  const store = openStore(t, dataDir(t));
  const s = scheduler(t, store, { handlerTimeoutMs: 50 });
  const reasons: unknown[] = [];
  s.register('check', (job, ctx) => {
    if (job.attempts >= 2) return Promise.resolve();
    ctx.signal.addEventListener('abort', () => reasons.push(ctx.signal.reason));
    return new Promise(() => undefined);
  });
  await store.repos.jobs.schedule({ kind: 'check', subject: 'hung', dueAt: Date.now() });
  s.start();
  await waitFor(async () => (await store.repos.jobs.get('check', 'hung')) === undefined, 'the third run to finish it');
  assert.equal(reasons.length, 2);
  assert.match(String((reasons[0] as Error).message), /did not finish within 50 ms/);
  assert.equal(s.log.lines.filter((l) => l.msg === 'job failed; will retry').length, 2);
});

test('a job scheduled for after the armed timer, or while it runs here, costs no claim; one due sooner does', async (t) => {
  const store = openStore(t, dataDir(t));
  let claims = 0;
  const claim = store.repos.jobs.claim;
  store.repos.jobs.claim = (request) => (claims++, claim(request));
  const s = scheduler(t, store, { pollIntervalMs: 60_000 });
  const ran: string[] = [];
  let release: () => void = () => undefined;
  s.register('check', async (job) => {
    ran.push(job.subject);
    if (job.subject === 'slow' && ran.filter((x) => x === 'slow').length === 1)
      await new Promise<void>((r) => (release = r));
  });
  s.start();
  await store.atomically(async (tx) =>
    tx.jobs.schedule({ kind: 'check', subject: 'timer', dueAt: Date.now() + 2_000 }),
  );
  await sleep(50);
  const armed = claims;
  // Due after the timer (armed for the 'timer' job): found when it fires.
  for (let i = 0; i < 5; i++)
    await store.atomically(async (tx) =>
      tx.jobs.schedule({ kind: 'check', subject: `later-${i}`, dueAt: Date.now() + 5_000 }),
    );
  await sleep(50);
  assert.equal(claims, armed, 'no claim for jobs due after the armed timer');
  // Running here: its end looks again.
  await store.atomically(async (tx) => tx.jobs.schedule({ kind: 'check', subject: 'slow', dueAt: Date.now() }));
  await waitFor(() => ran.includes('slow'), 'the slow job to start');
  const running = claims;
  await store.atomically(async (tx) => tx.jobs.schedule({ kind: 'check', subject: 'slow', dueAt: Date.now() }));
  await sleep(50);
  assert.equal(claims, running, 'no claim for a job that runs here');
  release();
  await waitFor(() => ran.filter((x) => x === 'slow').length === 2, 'the slow job to run again after its end');
  // Due before the timer: looked for at once.
  await store.atomically(async (tx) => tx.jobs.schedule({ kind: 'check', subject: 'now', dueAt: Date.now() }));
  await waitFor(() => ran.includes('now'), 'the job due now', 1_000);
});
