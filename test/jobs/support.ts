// Shared tools for the job scheduler tests: a real SQLite store in a temp dir, a recording logger, polling waits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.ts';
import { createJobScheduler, type JobScheduler, type SchedulerOptions } from '../../src/domain/jobs/scheduler.ts';
import type { Log } from '../../src/domain/log.ts';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  [field: string]: unknown;
}

export function recordingLog(): Log & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => void lines.push({ ...obj, level, msg });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A data dir that outlives one store (restart tests); removed via t.after. */
export function dataDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-jobs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens the store in `dir`; closed via t.after unless the test closes it first. */
export function openStore(t: TestContext, dir: string): SqliteStore {
  const store = createSqliteStore(openDatabase(dir));
  t.after(() => (store.db.open ? store.close() : undefined));
  return store;
}

/** A scheduler over `store` with short timings; closed via t.after. */
export function scheduler(
  t: TestContext,
  store: SqliteStore,
  options: Partial<SchedulerOptions> = {},
): JobScheduler & { log: ReturnType<typeof recordingLog> } {
  const log = recordingLog();
  const s = createJobScheduler({
    jobs: store.repos.jobs,
    owner: `test-${Math.random().toString(36).slice(2, 8)}`,
    logger: log,
    wakeups: store.onJobsScheduled,
    pollIntervalMs: 50,
    backoff: { baseMs: 10, maxMs: 40 },
    ...options,
  });
  t.after(() => s.close());
  return Object.assign(s, { log });
}

/** Polls `check` until truthy (10 s cap, so a broken test fails instead of hanging). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
