// Starts Relaybox as a user does (`npm start`'s command line, its own process) and reads its process tree's RSS and CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLOCK_TICKS = 100; // USER_HZ on Linux
/** `npm start` without `exec node`: the V8 flags and the entry, so what we measure is what users run. */
const START_ARGS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.replace(/^exec\s+/, '').split(/\s+/).slice(1);

export interface RunningService {
  url: string;
  child: ChildProcess;
  /** RSS in MiB of the service and every descendant (the plugin runtime process). */
  rssMiB(): number;
  /** The same, split: the HTTP process, and the runtime process with its descendants (esbuild). */
  rssBreakdownMiB(): { http: number; runtime: number };
  /** CPU seconds (user + system) of the service and every descendant so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function children(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    const direct = tasks ? tasks.split(/\s+/).map(Number) : [];
    return direct.flatMap((c) => [c, ...children(c)]);
  } catch {
    return [];
  }
}

function tree(pid: number): number[] {
  return [pid, ...children(pid)];
}

function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function cpuTicks(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Starts the service at warn level (as a tuned deployment would) and waits until /api/v1/health answers. */
export async function startService(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<RunningService> {
  const attempts = (options.timeoutMs ?? 30_000) / 100;
  const port = await freePort();
  // BENCH_SERVICE_NODE_OPTIONS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the service under the bench's load.
  const child = spawn(process.execPath, START_ARGS, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    if (i > attempts) {
      // Not left running behind a failed bench.
      child.kill('SIGKILL');
      throw new Error(`service did not answer within ${attempts / 10} s:\n${output}`);
    }
    const up = await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false);
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  return {
    url,
    child,
    rssMiB: () => tree(pid).reduce((sum, p) => sum + rssKiB(p), 0) / 1024,
    rssBreakdownMiB: () => ({ http: rssKiB(pid) / 1024, runtime: children(pid).reduce((sum, p) => sum + rssKiB(p), 0) / 1024 }),
    cpuSeconds: () => tree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / CLOCK_TICKS,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
