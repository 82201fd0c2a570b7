// A crashed predecessor's leases: an instance that restarts after kill -9 or a power cut would otherwise wait out
// the dead process's leases (30 s on SQLite) before any of its transactions moved again. Owners this instance can
// prove dead (same host, process gone) are released at start; anything it cannot prove waits for its lease.
import type { JobsRepo } from './ports.ts';
import type { Log } from '../log.ts';

export async function releaseDeadOwners(deps: {
  jobs: JobsRepo;
  isDead: (owner: string) => boolean;
  logger: Log;
  now: number;
}): Promise<number> {
  let freed = 0;
  for (const owner of await deps.jobs.leaseOwners(deps.now)) {
    if (!deps.isDead(owner)) continue;
    const n = await deps.jobs.releaseAllOf(owner);
    freed += n;
    deps.logger.info({ owner, jobs: n }, 'jobs held by a process that is gone were released');
  }
  return freed;
}
