// The reference's `system` readiness component: the process's file descriptors and the host's CLOSE_WAIT sockets, read
// from /proc (elsewhere: zeros, healthy), judged by the reference's thresholds.
import { readdir, readFile } from 'node:fs/promises';

export type ComponentStatus = 'healthy' | 'degraded' | 'unhealthy';

export interface SystemHealth {
  status: ComponentStatus;
  fd_count: number;
  fd_limit: number;
  fd_usage_percent: number;
  close_wait_count: number;
  error?: string;
}

// The reference's: degraded above 70 % of the descriptor limit or 200 CLOSE_WAIT sockets, unhealthy above 80 % or 500.
const WARNING_FD_RATIO = 0.7;
const MAX_FD_RATIO = 0.8;
const WARNING_CLOSE_WAIT = 200;
const MAX_CLOSE_WAIT = 500;
const DEFAULT_FD_LIMIT = 1024;

async function fdCount(): Promise<number> {
  return (await readdir('/proc/self/fd').catch(() => [])).length;
}

/** The soft limit on open files ("Max open files" in /proc/self/limits). */
async function fdLimit(): Promise<number> {
  const text = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  return soft ? Number(soft) : DEFAULT_FD_LIMIT;
}

/** TCP sockets in CLOSE_WAIT (state 08 in /proc/net/tcp and tcp6). */
async function closeWaitCount(): Promise<number> {
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) if (line.trim().split(/\s+/)[3] === '08') count++;
  }
  return count;
}

export async function systemHealth(): Promise<SystemHealth> {
  const [count, limit, closeWait] = await Promise.all([fdCount(), fdLimit(), closeWaitCount()]);
  const ratio = limit > 0 ? count / limit : 0;
  const errors: string[] = [];
  if (ratio > MAX_FD_RATIO)
    errors.push(
      `File descriptor limit critical: ${count}/${limit} (${(ratio * 100).toFixed(1)}% > ${MAX_FD_RATIO * 100}.0%)`,
    );
  if (closeWait > MAX_CLOSE_WAIT) errors.push(`Too many CLOSE_WAIT sockets: ${closeWait} > ${MAX_CLOSE_WAIT}`);
  const degraded = ratio > WARNING_FD_RATIO || closeWait > WARNING_CLOSE_WAIT;
  const status: ComponentStatus = errors.length > 0 ? 'unhealthy' : degraded ? 'degraded' : 'healthy';
  const health: SystemHealth = {
    status,
    fd_count: count,
    fd_limit: limit,
    fd_usage_percent: Math.floor(ratio * 100),
    close_wait_count: closeWait,
  };
  if (errors.length > 0) health.error = errors.join('; ');
  return health;
}
