// How the runtime process is started, heard from (besides IPC) and stopped: its command line and environment, the OOM
// reports on fd 4, the moment it is gone, and a shutdown that never hangs.
import { fork, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { RUNTIME_PROCESS } from '../../runtime/common/process-flags.ts';
import { OOM_FD, type OomReport, type ParentMessage } from '../../runtime/protocol.ts';
import { runtimeForkChannel, type RuntimeForkMessage } from './diagnostics.ts';
import { processEnv } from '../config/process-env.ts';

const SERVER_PATH = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'runtime',
  'process',
  'server.ts',
);

/** Forks a runtime process; it serves once sent 'init' (a standby gets 'prepare' first). */
export function forkRuntime(): ChildProcess {
  const execArgv: string[] = [...RUNTIME_PROCESS.execArgv];
  if (runtimeForkChannel.hasSubscribers) runtimeForkChannel.publish({ execArgv } satisfies RuntimeForkMessage);
  return fork(SERVER_PATH, [], {
    execArgv,
    serialization: 'advanced',
    // fd 4: OOM reports, written synchronously by a worker right before the process ends.
    stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
    // Plugins cannot read the environment anyway; the runtime itself needs none of our secrets either.
    env: {
      ...RUNTIME_PROCESS.env,
      PATH: processEnv().PATH ?? '',
      TMPDIR: processEnv().TMPDIR ?? '/tmp',
      NODE_ENV: processEnv().NODE_ENV ?? '',
      // Node's on-disk cache of compiled (and type-stripped) modules: a restart skips most of its boot work.
      NODE_COMPILE_CACHE: path.join(tmpdir(), 'relaybox-compile-cache'),
    },
  });
}

/** Hands each OOM report line of `proc` to `onReport`; a line that is not a report, or that `onReport` chokes on, is dropped. */
export function readOomReports(proc: ChildProcess, onReport: (report: OomReport) => void): void {
  const oomStream = proc.stdio[OOM_FD] as Readable | null;
  if (!oomStream) return;
  createInterface({ input: oomStream }).on('line', (line) => {
    try {
      onReport(JSON.parse(line) as OomReport);
    } catch {
      // not a report
    }
  });
}

/** Calls `gone` once, when `proc` has ended. */
export function onceGone(proc: ChildProcess, gone: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  // 'close' comes after 'exit' and after fd 4 is drained, so OOM reports are already read; a grandchild
  // holding the inherited pipe could delay it, hence the fallback shortly after 'exit'.
  let done = false;
  const once = (code: number | null, signal: NodeJS.Signals | null) => {
    if (done) return;
    done = true;
    gone(code, signal);
  };
  proc.on('exit', (code, signal) => setTimeout(() => once(code, signal), 500).unref());
  proc.on('close', (code, signal) => once(code, signal));
}

/** Asks `proc` to shut down and resolves when it has exited: SIGKILL after 3 s, and no more waiting after 5 s. */
export function stopRuntime(proc: ChildProcess, send: (msg: ParentMessage) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    // 'exit', not 'close': a grandchild (esbuild's service) may still hold an inherited pipe open.
    const done = () => {
      clearTimeout(kill);
      clearTimeout(giveUp);
      resolve();
    };
    const kill = setTimeout(() => proc.kill('SIGKILL'), 3000);
    const giveUp = setTimeout(done, 5000);
    if (proc.exitCode !== null || proc.signalCode !== null) return done();
    proc.once('exit', done);
    send({ t: 'shutdown' });
    if (!proc.connected) proc.kill('SIGKILL');
  });
}
