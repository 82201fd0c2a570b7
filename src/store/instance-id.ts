// Who this process is to the store (lease owners), and whether another owner on this host is provably gone.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export function newInstanceId(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

/**
 * True only for an owner of this host whose process no longer exists. A pid reused by another process reads as
 * alive: its leases are then waited out, never taken early.
 */
export function ownerIsGone(owner: string): boolean {
  const [host, pidText] = owner.split('/');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
