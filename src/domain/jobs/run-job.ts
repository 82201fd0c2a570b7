// Runs one claimed job: its handler, bounded by a timeout, then finish, reschedule or retry with backoff.
import type { Log } from '../log.ts';
import { backoffDelay, type BackoffPolicy } from '../backoff.ts';
import type { ClaimedJob, JobsRepo } from './ports.ts';

export interface JobContext {
  /**
   * Aborted when the job's lease was lost (another instance may run it now), its handler timed out, or the
   * scheduler is closing past its grace period: stop, write nothing more, return.
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

export interface JobRunner {
  /** Never rejects: every outcome is written to the store or logged. */
  run(job: ClaimedJob, handler: JobHandler, controller: AbortController): Promise<void>;
}

/**
 * A job whose network does not answer (every RPC URL down: CHAIN_UNAVAILABLE) waits rather than fails: tried again at
 * least this often, so it resumes soon after its network does, and logged as a wait, without a stack.
 */
const CHAIN_WAIT_MAX_MS = 5_000;
const waitsOnChain = (err: unknown) => (err as { code?: unknown } | null)?.code === 'CHAIN_UNAVAILABLE';

export function createJobRunner(deps: {
  jobs: JobsRepo;
  logger: Log;
  observer: Partial<JobObserver>;
  backoff: BackoffPolicy;
  handlerTimeoutMs: number;
  now: () => number;
}): JobRunner {
  const { jobs, logger, observer, backoff, handlerTimeoutMs, now } = deps;

  async function retry(job: ClaimedJob, err: unknown): Promise<void> {
    const attempts = job.attempts + 1;
    const waiting = waitsOnChain(err);
    const delay = waiting
      ? Math.min(backoffDelay(backoff, attempts), CHAIN_WAIT_MAX_MS)
      : backoffDelay(backoff, attempts);
    const reason = err instanceof Error ? err.message : String(err);
    if (waiting)
      logger.warn(
        {
          kind: job.kind,
          subject: job.subject,
          attempts,
          retryInMs: delay,
          reason: (err as { reason?: string }).reason,
        },
        'job waits: its network is not answering',
      );
    else
      logger.error({ err, kind: job.kind, subject: job.subject, attempts, retryInMs: delay }, 'job failed; will retry');
    try {
      await jobs.retry(job, now() + delay, reason.slice(0, 2000));
    } catch (storeErr) {
      logger.error(
        { err: storeErr, kind: job.kind, subject: job.subject },
        'job could not be marked for retry; it will run again when its lease expires',
      );
    }
  }

  async function finish(job: ClaimedJob, rescheduleAt: number | undefined): Promise<void> {
    try {
      if (!(await jobs.finish(job, rescheduleAt))) {
        logger.warn(
          { kind: job.kind, subject: job.subject },
          'job finished after its lease was lost or it was canceled; its current state is kept',
        );
      }
    } catch (err) {
      logger.error(
        { err, kind: job.kind, subject: job.subject },
        'job could not be marked finished; it will run again when its lease expires',
      );
    }
  }

  return {
    async run(job, handler, controller) {
      const startedAt = now();
      const seconds = () => (now() - startedAt) / 1000;
      let result: { rescheduleAt?: number } | void;
      let timer: NodeJS.Timeout | undefined;
      try {
        const run = Promise.resolve(handler(job, { signal: controller.signal }));
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
      await finish(job, result?.rescheduleAt ?? undefined);
    },
  };
}
