// Keeps the leases of running jobs alive: renewed once a third of the lease is used; a lost lease stops its handler.
import type { Log } from '../log.ts';
import type { ClaimedJob, JobsRepo } from './ports.ts';

export async function renewLeases(
  running: Iterable<{ job: ClaimedJob; controller: AbortController }>,
  deps: { jobs: JobsRepo; logger: Log; leaseMs: number; now: () => number },
): Promise<void> {
  const { jobs, logger, leaseMs } = deps;
  const t = deps.now();
  for (const { job, controller } of running) {
    if (controller.signal.aborted || job.leaseExpiresAt - t > (leaseMs * 2) / 3) continue;
    const until = t + leaseMs;
    try {
      if (await jobs.renew(job, until)) {
        job.leaseExpiresAt = until;
        continue;
      }
      logger.warn(
        { kind: job.kind, subject: job.subject },
        'job lease lost while its handler ran; the handler is told to stop',
      );
      controller.abort(new Error('job lease lost'));
    } catch (err) {
      logger.error({ err, kind: job.kind, subject: job.subject }, 'job lease could not be renewed; will try again');
    }
  }
}
