// Load driver process: keeps N requests in flight against one URL with undici and reports latency.
// Runs as its own process so its CPU never competes with the measured service's event loop.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

export interface DriverSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  /** When given, requests go to these paths in turn (e.g. one per relayer) instead of `path`. */
  paths?: string[];
  headers: Record<string, string>;
  body?: string;
  /** One body per request, in order (e.g. signed transactions, each usable once); `count` at most their number. */
  bodies?: string[];
  /** How a successful answer begins. Default: the service's envelope, `{"success":true`. */
  okPrefix?: string;
  inflight: number;
  durationMs?: number;
  count?: number;
  warmupMs?: number;
  label: string;
}

export interface DriverResult {
  label: string;
  requests: number;
  errors: number;
  firstError?: string;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  driverCpuSeconds: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function drive(spec: DriverSpec): Promise<DriverResult> {
  const pool = new Pool(spec.url, { connections: spec.inflight, pipelining: 1, keepAliveTimeout: 30_000 });
  let errors = 0;
  let firstError: string | undefined;
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  let recording = false;
  let stop = false;
  let issued = 0;
  let turn = 0;
  const nextPath = () => (spec.paths ? spec.paths[turn++ % spec.paths.length]! : spec.path);
  let nextBody = 0;
  const okPrefix = spec.okPrefix ?? '{"success":true';
  const one = async () => {
    const t0 = performance.now();
    try {
      const body = spec.bodies ? spec.bodies[nextBody++ % spec.bodies.length] : spec.body;
      const res = await pool.request({ method: spec.method, path: nextPath(), headers: spec.headers, body });
      const text = await res.body.text();
      if (res.statusCode >= 300 || !text.startsWith(okPrefix)) {
        if (recording) errors++;
        firstError ??= `${res.statusCode} ${text.slice(0, 200)}`;
      }
    } catch (err) {
      if (recording) errors++;
      firstError ??= String(err);
    }
    if (!recording) return;
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = performance.now() - t0;
  };
  const loop = async () => {
    while (!stop) {
      if (spec.count !== undefined && recording && issued >= spec.count) break;
      if (recording) issued++;
      await one();
    }
  };
  // No warm-up: every request counts from the first (with `bodies`, each body is sent exactly once).
  if (!spec.warmupMs) recording = true;
  const workers = Array.from({ length: spec.inflight }, loop);
  if (spec.warmupMs) await new Promise((r) => setTimeout(r, spec.warmupMs));
  recording = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const progress = setInterval(() => {
    process.stderr.write(`  ${spec.label}: ${n} requests, ${Math.round(n / ((performance.now() - t0) / 1000))}/s\r`);
  }, 1000);
  if (spec.durationMs !== undefined) setTimeout(() => (stop = true), spec.durationMs);
  await Promise.all(workers);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(progress);
  process.stderr.write('\n');
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  const sorted = latencies.slice(0, n).sort();
  return {
    label: spec.label,
    requests: n,
    errors,
    ...(firstError && errors ? { firstError } : {}),
    seconds,
    rps: n / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : 0,
    driverCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** Runs the driver in a process of its own for exactly this spec. */
export async function spawnDriver(spec: DriverSpec): Promise<DriverResult> {
  // A large spec (many bodies) goes through a file: an argument list has a size limit.
  let arg = JSON.stringify(spec);
  let file: string | undefined;
  if (arg.length > 64_000) {
    file = path.join(mkdtempSync(path.join(tmpdir(), 'relaybox-driver-')), 'spec.json');
    writeFileSync(file, arg);
    arg = `@${file}`;
  }
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), arg], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const [code] = await once(child, 'exit');
  if (file) rmSync(path.dirname(file), { recursive: true, force: true });
  if (code !== 0) throw new Error(`driver failed for ${spec.label} (exit ${code})`);
  return JSON.parse(out) as DriverResult;
}

// As a process: the spec arrives as JSON in argv[2]; the result leaves as JSON on stdout.
if (import.meta.main) {
  const arg = process.argv[2]!;
  const spec = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as DriverSpec;
  process.stdout.write(JSON.stringify(await drive(spec)) + '\n');
}
