// Starts Relaybox as a user does (`npm start`'s command line, its own process) and reads its process tree's RSS and CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLOCK_TICKS = 100; // USER_HZ on Linux
/** The command users run (README, `npm start`): its V8 flags and compile cache, so what we measure is what they run. */
const LAUNCHER = path.join(ROOT, 'bin', 'relaybox');

export interface RunningService {
  url: string;
  child: ChildProcess;
  /** RSS in MiB of the service and every descendant (the plugin runtime process). */
  rssMiB(): number;
  /** The same, split: the HTTP process, and the runtime process with its descendants (esbuild). */
  rssBreakdownMiB(): { http: number; runtime: number };
  /** CPU seconds (user + system) of the service and every descendant so far. */
  cpuSeconds(): number;
  /** Bytes the service and every descendant handed to write calls so far (files and sockets; /proc/<pid>/io wchar). */
  writtenBytes(): number;
  /** Each process of the tree by its role (HTTP, runtime, standby runtime, esbuild, devnet…) and its RSS in MiB. */
  processesMiB(): Array<{ role: string; pid: number; rss: number }>;
  /** How the service stands, for an error: running, or how it exited, and the last lines it printed. */
  describe(): string;
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

function startTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return 0;
  }
}

function roleOf(pid: number): string {
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return 'gone';
  }
  if (cmd.includes('runtime/process/server.ts')) return 'runtime';
  if (/esbuild/.test(cmd)) return 'esbuild';
  if (/anvil/.test(cmd)) return 'devnet';
  if (cmd.includes('src/main.ts')) return 'HTTP';
  return path.basename(cmd.split(' ')[0] ?? 'other');
}

/** The tree's processes by role; of two runtime processes the one started later is the standby. */
function processTree(pid: number): Array<{ role: string; pid: number; rss: number }> {
  const procs = tree(pid).map((p) => ({ role: roleOf(p), pid: p, rss: rssKiB(p) / 1024, started: startTicks(p) }));
  const runtimes = procs.filter((p) => p.role === 'runtime').sort((a, b) => a.started - b.started);
  for (const standby of runtimes.slice(1)) standby.role = 'standby runtime';
  return procs.map(({ role, pid: p, rss }) => ({ role, pid: p, rss }));
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

/** Bytes `pid` handed to write calls so far (0 once it is gone). */
function writtenBytesOf(pid: number): number {
  try {
    return Number(/^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** RSS in MiB of `pid` and its descendants (a floor's process tree, read as the service's is). */
export function treeRssMiB(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + rssKiB(p), 0) / 1024;
}

/** CPU seconds (user + system) of `pid` and its descendants so far. */
export function treeCpuSeconds(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / CLOCK_TICKS;
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/**
 * Starts the service at warn level in JSON lines (as a tuned deployment behind a log shipper would: no text
 * formatting in the measured path) and waits until /api/v1/health answers.
 */
/** The services this bench started: never left running when the bench ends, however it ends (a test's timeout kills it). */
const started = new Set<ChildProcess>();
let reaping = false;
function reapOnExit(): void {
  if (reaping) return;
  reaping = true;
  const reap = () => {
    for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  };
  process.once('exit', reap);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      reap();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }
}

export async function startService(
  env: Record<string, string>,
  options: { timeoutMs?: number; preload?: string } = {},
): Promise<RunningService> {
  const attempts = (options.timeoutMs ?? 30_000) / 100;
  const port = await freePort();
  // BENCH_SERVICE_NODE_OPTIONS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the service under the bench's load.
  // `preload`: a module URL the service's Node loads first (bench/hop-probe.ts), through Node's own NODE_OPTIONS.
  const nodeOptions = [process.env.BENCH_SERVICE_NODE_OPTIONS, options.preload && `--import=${options.preload}`]
    .filter(Boolean)
    .join(' ');
  reapOnExit();
  const child = spawn(LAUNCHER, [], {
    cwd: ROOT,
    // This Node first on the PATH: the launcher runs `node`.
    env: {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  child.once('exit', () => started.delete(child));
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
    const up = await fetch(`${url}/api/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const pid = child.pid!;
  return {
    url,
    child,
    rssMiB: () => treeRssMiB(pid),
    rssBreakdownMiB: () => ({
      http: rssKiB(pid) / 1024,
      runtime: children(pid).reduce((sum, p) => sum + rssKiB(p), 0) / 1024,
    }),
    cpuSeconds: () => tree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / CLOCK_TICKS,
    writtenBytes: () => tree(pid).reduce((sum, p) => sum + writtenBytesOf(p), 0),
    processesMiB: () => processTree(pid),
    describe: () =>
      `service ${child.exitCode === null && child.signalCode === null ? 'running' : `exited (${child.exitCode ?? child.signalCode})`}, ` +
      `its processes ${JSON.stringify(processTree(pid))}; last output:\n${output.split('\n').slice(-30).join('\n')}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
