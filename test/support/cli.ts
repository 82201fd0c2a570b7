// Test support: bin/relaybox run as a user runs it, in a folder of the test's own, with only the environment given.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

export const RELAYBOX = path.join(PROJECT_ROOT, 'bin', 'relaybox');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** PATH with this Node first (bin/relaybox runs `node`), NODE_PATH if the test run has one, and nothing else. */
export function baseEnv(): Record<string, string> {
  return {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}),
  };
}

/**
 * The child's environment: baseEnv, LOG_FORMAT=json (tests read log lines as JSON) unless the test sets another, and
 * `env`; a key given as undefined is left out (LOG_FORMAT: undefined starts the service on its default format).
 */
function childEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = { ...baseEnv(), LOG_FORMAT: 'json', ...env };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Starts bin/relaybox as a service; `listening` resolves once `line` (a text, any log format) has been printed. */
export function startRelaybox(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; until?: RegExp },
) {
  const child = spawn(RELAYBOX, args, {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const until = options.until ?? /relaybox listening/;
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (until.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  return { child, ready, output: () => out };
}

/** Runs bin/relaybox to its end (a deadline of 60 s: a start that should have failed at once hangs no test run). */
export function runRelaybox(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(RELAYBOX, args, {
      cwd: options.cwd,
      env: childEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
