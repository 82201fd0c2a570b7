// The one job scheduler: owns timing, batch claims under a lease and bounded concurrency; run-job.ts runs each job
// (timeout, finish, retry with backoff), leases.ts keeps leases of slow handlers alive.
import type { Log } from '../log.ts';
import type { BackoffPolicy } from '../backoff.ts';
import type { ClaimedJob, JobSpec, JobsRepo } from './ports.ts';
import { createJobRunner, type JobHandler, type JobObserver } from './run-job.ts';
import { renewLeases } from './leases.ts';

export type { JobContext, JobHandler, JobObserver } from './run-job.ts';

export interface SchedulerOptions {
  /** The store's repositories used on their own (not a transaction's). */
  jobs: JobsRepo;
  /** This instance's lease owner name: unique per process run. */
  owner: string;
  logger: Log;
  /** Subscribes to "a job was scheduled and committed" (Store.onJobsScheduled), with the jobs when known. */
  wakeups?: (listener: (scheduled?: readonly JobSpec[]) => void) => () => void;
  observer?: Partial<JobObserver>;
  /** Handlers running at once. Default 32. */
  concurrency?: number;
  /** Jobs claimed per query, at most the free slots. Default 64. */
  batchSize?: number;
  /** Renewed while the handler runs; once past, other instances may claim the job. Default 30 s. */
  leaseMs?: number;
  /** Longest sleep between looks at the table (safety net for other instances' work and expired leases). Default 1 s. */
  pollIntervalMs?: number;
  /** Delay before retrying a failed job. Default 1 s doubling up to 5 min, jittered. */
  backoff?: BackoffPolicy;
  /**
   * A handler still running after this is aborted and its job retried with backoff, so a hung call
   * (an RPC without an answer) cannot hold a slot and renew its lease forever. Default 2 min.
   */
  handlerTimeoutMs?: number;
  /** How long close() waits for running handlers before aborting and releasing them. Default 10 s. */
  closeTimeoutMs?: number;
  now?: () => number;
}

export interface JobScheduler {
  /** One handler per kind; jobs of kinds without a handler stay in the table for an instance that has one. */
  register(kind: string, handler: JobHandler): void;
  start(): void;
  /**
   * Look for due work now (the store's wake-ups call this after a commit that scheduled jobs). With `scheduled`, the
   * jobs that commit scheduled: no look when each is running here (its end looks) or due after the timer fires.
   */
  wake(scheduled?: readonly JobSpec[]): void;
  /** Stops claiming, waits for running handlers (bounded by closeTimeoutMs), then aborts and releases the rest. */
  close(): Promise<void>;
  /** Handlers running now. */
  readonly running: number;
}

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  done: Promise<void>;
}

const MIN_SLEEP_MS = 1;

/** The options with their documented defaults filled in. */
function withDefaults(options: SchedulerOptions) {
  return {
    ...options,
    concurrency: options.concurrency ?? 32,
    batchSize: options.batchSize ?? 64,
    leaseMs: options.leaseMs ?? 30_000,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    closeTimeoutMs: options.closeTimeoutMs ?? 10_000,
    now: options.now ?? Date.now,
    observer: options.observer ?? {},
    backoff: options.backoff ?? { baseMs: 1_000, maxMs: 300_000 },
    handlerTimeoutMs: options.handlerTimeoutMs ?? 120_000,
  };
}

export function createJobScheduler(options: SchedulerOptions): JobScheduler {
  const settings = withDefaults(options);
  const { jobs, owner, logger, concurrency, batchSize, leaseMs, pollIntervalMs, closeTimeoutMs, now, observer } =
    settings;
  const runner = createJobRunner(settings);
  const handlers = new Map<string, JobHandler>();
  const running = new Map<number, Running>();
  let kinds: string[] = [];
  let started = false;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (Infinity: no timer armed). */
  let timerAt = Infinity;
  let renewTimer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let pumping: Promise<void> | undefined;
  let again = false;
  let wakeQueued = false;
  /** Whether this turn's wake-ups asked for a look (one without jobs, or a job neither running nor timed). */
  let lookAsked = false;

  /** A scheduled job that a look now would not find sooner: it runs here (its end looks), or is due after the timer. */
  const covered = (spec: JobSpec) => {
    if (spec.dueAt >= timerAt) return true;
    for (const r of running.values()) if (r.job.kind === spec.kind && r.job.subject === spec.subject) return true;
    return false;
  };

  /**
   * Coalesces wake-ups: jobs finishing in one event-loop turn lead to one claim. A hot relayer's check, scheduled
   * again by every batch of sends while it runs or waits for its time, asks for no look: a claim then would find
   * nothing due, and cost two queries per commit.
   */
  function wake(scheduled?: readonly JobSpec[]): void {
    if (!started || closing) return;
    if (!lookAsked) lookAsked = scheduled === undefined || !scheduled.every(covered);
    if (wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      const look = lookAsked;
      lookAsked = false;
      if (look || pumping) pump();
    });
  }

  function sleep(ms: number): void {
    if (closing) return;
    clearTimeout(timer);
    const wait = Math.max(MIN_SLEEP_MS, ms);
    timerAt = now() + wait;
    timer = setTimeout(pump, wait);
    timer.unref();
  }

  function pump(): void {
    if (closing) return;
    if (pumping) {
      again = true;
      return;
    }
    clearTimeout(timer);
    timerAt = Infinity;
    pumping = fill()
      .catch((err: unknown) => {
        // A store error (busy, closing) must not kill the process from a timer: look again after the poll interval.
        logger.error({ err }, 'job scheduler could not read the jobs table');
        sleep(pollIntervalMs);
      })
      .finally(() => {
        pumping = undefined;
        if (again) {
          again = false;
          pump();
        }
      });
  }

  async function fill(): Promise<void> {
    if (kinds.length === 0) return;
    for (;;) {
      const free = concurrency - running.size;
      // Full: a finishing handler wakes the scheduler.
      if (free <= 0) return;
      const limit = Math.min(free, batchSize);
      const claimed = await jobs.claim({ owner, now: now(), limit, leaseMs, kinds });
      for (const job of claimed) launch(job);
      if (claimed.length < limit) break;
    }
    const next = await jobs.nextDueAt(kinds);
    sleep(next === null ? pollIntervalMs : Math.min(pollIntervalMs, next - now()));
  }

  function launch(job: ClaimedJob): void {
    if (closing) {
      // Claimed while close() began: hand it straight back.
      void jobs.release(job).catch(() => undefined);
      return;
    }
    observer.claimed?.(job.kind, Math.max(0, now() - job.dueAt) / 1000);
    const entry = { job, controller: new AbortController() } as Running;
    running.set(job.id, entry);
    entry.done = runner.run(job, handlers.get(job.kind)!, entry.controller).finally(() => {
      running.delete(job.id);
      wake();
    });
  }

  return {
    register(kind, handler) {
      if (handlers.has(kind)) throw new Error(`a handler for job kind '${kind}' is already registered`);
      handlers.set(kind, handler);
      kinds = [...handlers.keys()];
      wake();
    },
    start() {
      if (started || closing) return;
      started = true;
      unsubscribe = options.wakeups?.(wake);
      // One timer for every running job: a lease is renewed once a third of it is used.
      renewTimer = setInterval(
        () => void renewLeases(running.values(), { jobs, logger, leaseMs, now }),
        Math.max(10, Math.floor(leaseMs / 3)),
      );
      renewTimer.unref();
      wake();
    },
    wake,
    async close() {
      if (closing) return;
      closing = true;
      clearTimeout(timer);
      unsubscribe?.();
      await pumping;
      await settleWithin(
        [...running.values()].map((r) => r.done),
        closeTimeoutMs,
      );
      clearInterval(renewTimer);
      await releaseUnfinished([...running.values()], jobs, logger);
    },
    get running() {
      return running.size;
    },
  };
}

/** Handlers still running after the close timeout are aborted and their jobs handed back, to run again. */
async function releaseUnfinished(left: Running[], jobs: JobsRepo, logger: Log): Promise<void> {
  if (left.length === 0) return;
  for (const r of left) r.controller.abort(new Error('job scheduler closing'));
  await Promise.allSettled(left.map((r) => jobs.release(r.job)));
  logger.warn(
    { jobs: left.map((r) => ({ kind: r.job.kind, subject: r.job.subject })) },
    'jobs still running at close were released; they will run again',
  );
}

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
