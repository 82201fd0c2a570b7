// wrk (a C load generator) against one URL: its own CPU is small beside the service's, so the ratio of the service to
// the bare express floor is not dragged down by a JavaScript driver competing for the same 2 cores.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DriverResult } from './driver.ts';

export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version.
    return (err as { status?: number }).status === 1;
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const ms = (value: string) => {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
};

/** Reads wrk's `--latency` report: requests/s, the 50 and 99 percentiles, the max, and the failed answers. */
function parseWrk(out: string, label: string, seconds: number): DriverResult {
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  const latencyLine = /Latency\s+(\S+)\s+(\S+)\s+(\S+)/.exec(out);
  return {
    label,
    requests,
    errors: non2xx + socketErrors,
    ...(non2xx + socketErrors ? { firstError: out.slice(0, 400) } : {}),
    seconds,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    // Line starts only: the thread stats' "+/- Stdev" column also ends in a percentage (e.g. 95.50%).
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    max: latencyLine ? ms(latencyLine[3]!) : NaN,
    driverCpuSeconds: 0,
  };
}

/** One wrk run (one thread, `inflight` connections) POSTing `body` with `headers` for `durationMs`. */
export async function wrk(spec: {
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  inflight: number;
  durationMs: number;
  label: string;
}): Promise<DriverResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-wrk-'));
  const script = path.join(dir, 'post.lua');
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(spec.body)}`,
    ...Object.entries(spec.headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
  ];
  writeFileSync(script, lines.join('\n') + '\n');
  const seconds = Math.max(1, Math.round(spec.durationMs / 1000));
  try {
    const { stdout } = await promisify(execFile)(
      'wrk',
      ['-t1', `-c${spec.inflight}`, `-d${seconds}s`, '--latency', '-s', script, spec.url + spec.path],
      { timeout: spec.durationMs + 30_000 },
    );
    return parseWrk(stdout, spec.label, seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
