// Runs `node src/main.ts` as a real child process in its own process group, for crash and secrets tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves with the base URL once the service logs that it listens. */
  listening: Promise<string>;
  output(): string;
  /** SIGKILL to the whole process group: the service and any process it started. */
  killHard(): Promise<void>;
  stop(): Promise<number | null>;
}

export function startService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'src/main.ts')], {
    // JSON lines (the listening line is parsed below); a test may ask for another LOG_FORMAT.
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own group, so a kill reaches the plugin runtime it spawns too.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = once(child, 'exit');
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      // A JSON line, or pino-pretty's text (a test may ask for compact or pretty, whose fields follow on lines of
      // their own): the entry's url field names the port.
      const lines = out.split('\n');
      const at = lines.findIndex((l) => l.includes('relaybox listening'));
      const port =
        at < 0
          ? undefined
          : /"?url"?: ?"http:\/\/127\.0\.0\.1:(\d+)\/api\/v1"/.exec(lines.slice(at, at + 12).join('\n'))?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`service exited (${code ?? signal}) before listening:\n${out}`)),
    );
    // The listening line is logged at info: a quieter LOG_LEVEL would otherwise wait forever. The deadline only stops
    // a hang: a start (runtime process, plugins' isolates) with both cores busy has been seen past 30 s.
    setTimeout(() => reject(new Error(`service not listening after 90 s:\n${out}`)), 90_000).unref();
  });
  listening.catch(() => {});
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    listening,
    output: () => out,
    async killHard() {
      if (running()) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (running()) child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
