// A local EVM chain: the real anvil binary (foundry's @foundry-rs/anvil-<platform> package), started on a loopback port and never left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';

export interface DevnetOptions {
  /** 0 or absent: a free port, read back from anvil's "Listening on" line. */
  port?: number | undefined;
  host?: string | undefined;
  chainId?: number | undefined;
  /** Absent: automine (a block per transaction). */
  blockTimeMs?: number | undefined;
  /** Extra anvil arguments. */
  args?: readonly string[] | undefined;
  /** How long to wait for the first answer. */
  startTimeoutMs?: number | undefined;
}

export interface Devnet {
  readonly url: string;
  readonly port: number;
  /** The supervising process (on POSIX a tiny shell that kills anvil when its stdin closes). */
  readonly pid: number;
  /** Stops anvil and waits for it to be gone. Idempotent. */
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/**
 * foundry publishes the binary as one package per platform. package.json names the linux-x64 one as an optional
 * dependency directly (its wrapper, @foundry-rs/anvil, lists every platform, and a registry mirror without the
 * other platforms' packages leaves a lock file that `npm ci` refuses); other platforms install theirs by name.
 */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return require.resolve(`${pkg}/bin/anvil${process.platform === 'win32' ? '.exe' : ''}`);
  } catch (err) {
    throw new Error(
      `no anvil binary for ${process.platform}/${process.arch}: ${pkg} is not installed (npm install --no-save ${pkg})`,
      { cause: err },
    );
  }
}

// Runs anvil in the background and exits with it; a watcher kills it as soon as our stdin reaches
// EOF, which happens when we stop it and also when the Node process dies, even by SIGKILL.
// (A background job's stdin is /dev/null unless redirected, hence fd 3.)
const SUPERVISOR =
  'exec 3<&0; "$0" "$@" </dev/null & pid=$!; (while read -r _; do :; done; kill "$pid" 2>/dev/null) <&3 & wait "$pid"';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    // Detached: the supervisor leads its own process group, anvil and the watcher included.
    if (child.pid !== undefined) process.kill(process.platform === 'win32' ? child.pid : -child.pid, signal);
  } catch {
    // Already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers run synchronously; kill() is synchronous, so nothing outlives an exiting parent.
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

function buildArgs(options: DevnetOptions): string[] {
  const args = ['--host', options.host ?? '127.0.0.1', '--port', String(options.port ?? 0)];
  if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId));
  if (options.blockTimeMs !== undefined) args.push('--block-time', String(options.blockTimeMs / 1000));
  return [...args, ...(options.args ?? [])];
}

function spawnAnvil(args: string[]): ChildProcess {
  const binary = anvilBinary();
  const spawnOptions = { stdio: 'pipe' as const, detached: process.platform !== 'win32' };
  return process.platform === 'win32'
    ? spawn(binary, args, spawnOptions)
    : spawn('/bin/sh', ['-c', SUPERVISOR, binary, ...args], spawnOptions);
}

/** Resolves with the bound port once anvil prints it; rejects with its output if it exits first. */
function boundPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`anvil did not start: ${why}\n${output.slice(-2000)}`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on [^\s]*:(\d+)/.exec(output);
      if (match) {
        cleanup();
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null) => fail(`exited with ${code}`);
    const timer = setTimeout(() => fail(`no "Listening on" line within ${timeoutMs} ms`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  });
}

/** Polls eth_chainId until the node answers: "Listening" is printed just before the server accepts. */
async function waitUntilAnswering(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (res.ok) return;
    } catch {
      // Not accepting yet.
    }
    if (Date.now() > deadline) throw new Error(`anvil at ${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts anvil with its default accounts (the publicly known Hardhat/anvil keys, 10,000 ETH each).
 * @example const devnet = await startDevnet({ chainId: 31337, blockTimeMs: 1000 }); … await devnet.stop();
 */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  installExitHook();
  const child = spawnAnvil(buildArgs(options));
  live.add(child);
  const exited = once(child, 'exit');
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  let port: number;
  try {
    port = await boundPort(child, timeoutMs);
    await waitUntilAnswering(`http://${options.host ?? '127.0.0.1'}:${port}`, Date.now() + timeoutMs);
  } catch (err) {
    killGroup(child, 'SIGKILL');
    live.delete(child);
    throw err;
  }
  // anvil logs every call on stdout: keep draining it, and let a forgotten devnet not hold the event loop open
  // (the exit hook still kills it).
  child.stdout!.resume();
  child.stderr!.resume();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as unknown as { unref?: () => void }).unref?.();
  child.unref();

  let stopping: Promise<void> | undefined;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    pid: child.pid!,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          // EOF on stdin: the watcher stops anvil and the supervisor exits only once anvil has (it waits for it).
          if (process.platform === 'win32') child.kill('SIGTERM');
          else child.stdin!.end();
          const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3_000);
          await exited;
          clearTimeout(timer);
        }
        live.delete(child);
      })();
      return stopping;
    },
  };
}
