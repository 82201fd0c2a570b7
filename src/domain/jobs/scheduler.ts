// The one job scheduler: claims due jobs in batches under a lease, runs their handlers with bounded concurrency,
// renews leases of slow handlers, retries failures with backoff and never drops a job.
import type { Log } from '../notifications/ports.ts';
import { backoffDelay, type BackoffPolicy } from '../webhooks/backoff.ts';
import type { ClaimedJob, JobsRepo } from './ports.ts';

export interface JobContext {
  /**
   * Aborted when the job's lease was lost (another instance may run it now) or the scheduler is closing
   * past its grace period: stop, write nothing more, return.
   */
  signal: AbortSignal;
}

/**
 * Does the work of one job. Resolve to finish it (deleted), or with `rescheduleAt` to keep it due then;
 * throw to have it retried with backoff. Handlers must be idempotent: after a crash the job runs again.
 */
export type JobHandler = (job: ClaimedJob, ctx: JobContext) => Promise<{ rescheduleAt?: number } | void>;

/** Metrics hooks; plain callbacks keep the domain free of a metrics library. */
export interface JobObserver {
  /** `lagSeconds`: how late the job was claimed (now − due). */
  claimed(kind: string, lagSeconds: number): void;
  finished(kind: string, seconds: number): void;
  failed(kind: string, seconds: number): void;
}

export interface SchedulerOptions {
  /** The store's repositories used on their own (not a transaction's). */
  jobs: JobsRepo;
  /** This instance's lease owner name: unique per process run. */
  owner: string;
  logger: Log;
  /** Subscribes to "a job was scheduled and committed" (Store.onJobsScheduled). */
  wakeups?: (listener: () => void) => () => void;
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
  /** Look for due work now (the store's wake-ups call this after a commit that scheduled jobs). */
  wake(): void;
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

export function createJobScheduler(options: SchedulerOptions): JobScheduler {
  const { jobs, owner, logger } = options;
  const concurrency = options.concurrency ?? 32;
  const batchSize = options.batchSize ?? 64;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const backoff = options.backoff ?? { baseMs: 1_000, maxMs: 300_000 };
  const handlerTimeoutMs = options.handlerTimeoutMs ?? 120_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const observer = options.observer ?? {};
  const handlers = new Map<string, JobHandler>();
  const running = new Map<number, Running>();
  let kinds: string[] = [];
  let started = false;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  let renewTimer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let pumping: Promise<void> | undefined;
  let again = false;
  let wakeQueued = false;

  /** Coalesces wake-ups: jobs finishing in one event-loop turn lead to one claim. */
  function wake(): void {
    if (!started || closing || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      pump();
    });
  }

  function sleep(ms: number): void {
    if (closing) return;
    clearTimeout(timer);
    timer = setTimeout(pump, Math.max(MIN_SLEEP_MS, ms));
    timer.unref();
  }

  function pump(): void {
    if (closing) return;
    if (pumping) {
      again = true;
      return;
    }
    clearTimeout(timer);
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
    entry.done = execute(entry).finally(() => {
      running.delete(job.id);
      wake();
    });
  }

  async function execute({ job, controller }: Running): Promise<void> {
    const startedAt = now();
    const seconds = () => (now() - startedAt) / 1000;
    let result: { rescheduleAt?: number } | void;
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = Promise.resolve(handlers.get(job.kind)!(job, { signal: controller.signal }));
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const err = new Error(`job handler did not finish within ${handlerTimeoutMs} ms`);
          controller.abort(err);
          reject(err);
        }, handlerTimeoutMs);
      });
      // The run may still settle after a timeout: its outcome no longer matters.
      run.catch(() => undefined);
      result = await Promise.race([run, timeout]);
    } catch (err) {
      observer.failed?.(job.kind, seconds());
      return retry(job, err);
    } finally {
      clearTimeout(timer);
    }
    observer.finished?.(job.kind, seconds());
    try {
      if (!(await jobs.finish(job, result?.rescheduleAt ?? undefined))) {
        logger.warn({ kind: job.kind, subject: job.subject }, 'job finished after its lease was lost or it was canceled; its current state is kept');
      }
    } catch (err) {
      logger.error({ err, kind: job.kind, subject: job.subject }, 'job could not be marked finished; it will run again when its lease expires');
    }
  }

  async function retry(job: ClaimedJob, err: unknown): Promise<void> {
    const attempts = job.attempts + 1;
    const delay = backoffDelay(backoff, attempts);
    const reason = err instanceof Error ? err.message : String(err);
    logger.error({ err, kind: job.kind, subject: job.subject, attempts, retryInMs: delay }, 'job failed; will retry');
    try {
      await jobs.retry(job, now() + delay, reason.slice(0, 2000));
    } catch (storeErr) {
      logger.error({ err: storeErr, kind: job.kind, subject: job.subject }, 'job could not be marked for retry; it will run again when its lease expires');
    }
  }

  /** One timer for every running job: leases are renewed once a third of them is used. */
  async function renewLeases(): Promise<void> {
    const t = now();
    for (const { job, controller } of running.values()) {
      if (controller.signal.aborted || job.leaseExpiresAt - t > (leaseMs * 2) / 3) continue;
      const until = t + leaseMs;
      try {
        if (await jobs.renew(job, until)) {
          job.leaseExpiresAt = until;
          continue;
        }
        logger.warn({ kind: job.kind, subject: job.subject }, 'job lease lost while its handler ran; the handler is told to stop');
        controller.abort(new Error('job lease lost'));
      } catch (err) {
        logger.error({ err, kind: job.kind, subject: job.subject }, 'job lease could not be renewed; will try again');
      }
    }
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
      renewTimer = setInterval(() => void renewLeases(), Math.max(10, Math.floor(leaseMs / 3)));
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
      await settleWithin([...running.values()].map((r) => r.done), closeTimeoutMs);
      clearInterval(renewTimer);
      if (running.size === 0) return;
      const left = [...running.values()];
      for (const r of left) r.controller.abort(new Error('job scheduler closing'));
      await Promise.allSettled(left.map((r) => jobs.release(r.job)));
      logger.warn({ jobs: left.map((r) => ({ kind: r.job.kind, subject: r.job.subject })) }, 'jobs still running at close were released; they will run again');
    },
    get running() {
      return running.size;
    },
  };
}

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
