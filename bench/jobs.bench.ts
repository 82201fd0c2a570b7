// Bench: durable jobs on SQLite: schedule rate, and how fast one scheduler drains N due jobs (claim, run, finish).
// Run: node bench/jobs.bench.ts  (BENCH_JOBS=<n>, default 10000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/store/sqlite/db.ts';
import { createSqliteStore } from '../src/store/sqlite/store.ts';
import { createJobScheduler } from '../src/domain/jobs/scheduler.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function run(
  label: string,
  concurrency: number,
  perTransaction: number,
  handler: () => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-jobs-'));
  const store = createSqliteStore(openDatabase(dir));
  try {
    const now = Date.now();
    const t0 = performance.now();
    for (let i = 0; i < JOBS; i += perTransaction) {
      await store.atomically(async (tx) => {
        for (let j = i; j < Math.min(JOBS, i + perTransaction); j++)
          await tx.jobs.schedule({ kind: 'check', subject: `tx-${j}`, dueAt: now, payload: { n: j } });
      });
    }
    const scheduleMs = performance.now() - t0;
    let done = 0;
    let resolveDrained!: () => void;
    const drained = new Promise<void>((resolve) => (resolveDrained = resolve));
    const scheduler = createJobScheduler({
      jobs: store.repos.jobs,
      owner: 'bench',
      logger: quiet,
      concurrency,
      pollIntervalMs: 1000,
    });
    scheduler.register('check', async () => {
      await handler();
      if (++done === JOBS) resolveDrained();
    });
    const t1 = performance.now();
    scheduler.start();
    await drained;
    await scheduler.close();
    const drainMs = performance.now() - t1;
    const left = (await store.repos.jobs.stats(Date.now())).reduce((n, s) => n + s.scheduled, 0);
    console.log(
      `${label.padEnd(46)} schedule ${Math.round((JOBS / scheduleMs) * 1000)
        .toString()
        .padStart(7)}/s   drain ${Math.round((JOBS / drainMs) * 1000)
        .toString()
        .padStart(6)} jobs/s (${drainMs.toFixed(0)} ms, ${left} left)`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`node ${process.version}, ${JOBS.toLocaleString('en-US')} due jobs`);
await run('warm-up', 32, 1000, async () => undefined);
await run('no-op handler, concurrency 32, 1 per tx', 32, 1, async () => undefined);
await run('no-op handler, concurrency 32, 1000 per tx', 32, 1000, async () => undefined);
await run('1 ms async handler (an RPC), concurrency 256', 256, 1000, () => new Promise((r) => setTimeout(r, 1)));
