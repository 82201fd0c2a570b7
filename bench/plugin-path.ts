// The plugin call path against its floors, in one run: echo against a bare express 5 route answering the same JSON and
// against the design's pipeline floor (bench/floors/pipeline-floor.ts) (wrk, 1 and 64 connections, alternated), the
// time of each hop of an echo call at 1 in flight (the service's diagnostics channels, subscribed to by
// bench/hop-probe.ts; see docs/performance.md), and the RSS of each process of the service tree, idle and after the load.
// Alone: `node bench/plugin-path.ts [seconds per run]`; bench/run.ts runs it as part of `npm run bench`.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { spawnDriver, type DriverResult } from './driver.ts';
import type { HopRecord } from './hop-probe.ts';
import { startService, treeCpuSeconds, treeRssMiB } from './service.ts';
import { hasWrk, wrk } from './wrk.ts';
import { SETTLE_MS, table, treeLine, type Row } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const BODY = JSON.stringify({ params: { hello: 'world', n: 1 } });
const HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

/** The hops of one call, in the order a call crosses them; each is the difference of two nested durations. */
const HOPS = [
  ['HTTP in and out (socket, node:http, the response write)', (t: Timing) => t.total - t.mw - t.route],
  ['express middleware before the route', (t: Timing) => t.mw],
  ['route and plugin service around the runtime call', (t: Timing) => t.route - t.call],
  ['IPC both ways (HTTP process ⇄ runtime process)', (t: Timing) => t.call - t.main],
  ['runtime main thread (registry, scheduler)', (t: Timing) => t.main - t.pool],
  ['Piscina both ways (main thread ⇄ worker)', (t: Timing) => t.pool - t.worker],
  ['worker around the isolate (code, context, result checks)', (t: Timing) => t.worker - t.isolate],
  ['isolate (entry, plugin code, result out)', (t: Timing) => t.isolate],
] as const;

type Timing = Record<'total' | 'mw' | 'route' | 'call' | 'main' | 'pool' | 'worker' | 'isolate', number>;
export interface HopBreakdown {
  calls: number;
  total: number;
  hops: Array<{ hop: string; ms: number }>;
}
export interface ProcessRss {
  role: string;
  rss: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Until the service's echo plugin answers (the runtime loads the plugins directory after the HTTP listener is up). */
async function echoCallable(url: string): Promise<void> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}/api/v1/plugins/echo/call`, { method: 'POST', headers: HEADERS, body: BODY });
    if (res.ok) return;
    if (i > 300) throw new Error(`echo not callable: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const WARM_UP_CALLS = 200;
const KEYS = ['mw', 'route', 'call', 'main', 'pool', 'worker', 'isolate'] as const;

/**
 * The probe's records in `dir` joined per request id, once every call of `totals` has its seven measures (they are
 * written a moment after the call), or at a generous deadline with those that do.
 */
async function probeTimings(dir: string, totals: Map<string, number>): Promise<Timing[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const byId = new Map<string, Partial<Timing>>();
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        if (!line) continue;
        const { requestId, ...measures } = JSON.parse(line) as HopRecord;
        if (totals.has(requestId)) byId.set(requestId, { ...byId.get(requestId), ...measures });
      }
    }
    const complete = [...byId].filter(([, t]) => KEYS.every((k) => typeof t[k] === 'number'));
    if (complete.length === totals.size || Date.now() > deadline)
      return complete.map(([id, t]) => ({ ...t, total: totals.get(id)! }) as Timing);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * `calls` sequential echo calls (after WARM_UP_CALLS) on a service of its own started with bench/hop-probe.ts
 * preloaded, the median of each hop. A service of its own: the probe's subscribers would trace every call of the load
 * runs. Undefined when no call's hops all came back (the service published none).
 */
async function hopBreakdown(
  setup: { root: string; plugins: string; config: string },
  calls: number,
): Promise<HopBreakdown | undefined> {
  const out = mkdtempSync(path.join(setup.root, 'hops-'));
  const probe = new URL('./hop-probe.ts', import.meta.url);
  probe.searchParams.set('out', out);
  const svc = await startService(
    {
      API_KEY,
      DATA_DIR: path.join(setup.root, 'data-hops'),
      PLUGINS_DIR: setup.plugins,
      CONFIG_PATH: setup.config,
      RATE_LIMIT_RPS: '100000000',
      RATE_LIMIT_BURST: '100000000',
    },
    { preload: probe.href },
  );
  const totals = new Map<string, number>();
  try {
    await echoCallable(svc.url);
    const pool = new Pool(svc.url, { connections: 1 });
    try {
      for (let i = 0; i < calls + WARM_UP_CALLS; i++) {
        const requestId = `hop-${i}`;
        const t0 = performance.now();
        const res = await pool.request({
          method: 'POST',
          path: '/api/v1/plugins/echo/call',
          headers: { ...HEADERS, 'x-request-id': requestId },
          body: BODY,
        });
        await res.body.text();
        if (i >= WARM_UP_CALLS) totals.set(requestId, performance.now() - t0);
      }
    } finally {
      await pool.close();
    }
    const timings = await probeTimings(out, totals);
    if (timings.length === 0) return undefined;
    return {
      calls: timings.length,
      total: median(timings.map((t) => t.total)),
      hops: HOPS.map(([hop, of]) => ({ hop, ms: median(timings.map(of)) })),
    };
  } finally {
    await svc.stop();
  }
}

/**
 * bench/floors/crossings-floor.ts: the process and thread crossings of a call, nothing else. At 1 in flight its p50
 * is the latency floor; at 64 its CPU per round trip (both processes) is what the crossings cost a call under load.
 */
async function crossingsFloor(inflight: number, count: number): Promise<Row> {
  const child = spawn(
    process.execPath,
    [path.join(HERE, 'floors/crossings-floor.ts'), String(count), String(inflight)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await once(child, 'exit');
  const r = JSON.parse(out) as DriverResult & { cpuUsPerCall: number };
  return {
    scenario: CROSSINGS_FLOOR,
    inflight,
    requests: r.requests,
    errors: r.errors,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    cpuUsPerCall: r.cpuUsPerCall,
    note: `CPU ${r.cpuUsPerCall.toFixed(0)} µs per call`,
  };
}

const CROSSINGS_FLOOR = 'crossings floor (fork IPC to a process, its Piscina worker, and back; no HTTP, no isolate)';

const PIPELINE_FLOOR = 'pipeline floor (express 5, fork IPC, Piscina 2 threads, warm isolate applySync)';

/** A floor's HTTP server (bench/floors/express-floor.ts or pipeline-floor.ts) in its own process, once listening. */
async function startFloor(file: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(HERE, 'floors', file)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${(JSON.parse(String(chunk)) as { port: number }).port}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export interface PluginPathResult {
  rows: Row[];
  hops: HopBreakdown | undefined;
  rssIdle: ProcessRss[];
  rssAfter: ProcessRss[];
  /** SETTLE_MS after the load. */
  rssSettled: ProcessRss[];
  /** The pipeline floor's process tree (HTTP process and runtime process), read beside the service's idle and after-load trees. */
  floorRss: { idle: number; after: number };
  driver: 'wrk' | 'undici';
}

export const rssLine = treeLine;

/** Floors and echo alternated at 1 and 64 connections, the hops, the RSS of the tree idle and after. */
export async function pluginPath(options: {
  durationMs: number;
  hopCalls: number;
  idleWaitMs?: number;
  settleMs?: number;
  log: (msg: string) => void;
}): Promise<PluginPathResult> {
  const { log } = options;
  const root = mkdtempSync(path.join(os.tmpdir(), 'relaybox-path-'));
  const plugins = path.join(root, 'plugins');
  mkdirSync(plugins, { recursive: true });
  copyFileSync(path.join(HERE, 'plugins', 'echo.ts'), path.join(plugins, 'echo.ts'));
  const config = path.join(root, 'config.json');
  writeFileSync(config, JSON.stringify({ relayers: [], notifications: [], signers: [], networks: [], plugins: [] }));
  const floor = await startFloor('express-floor.ts');
  const pipeline = await startFloor('pipeline-floor.ts');
  const svc = await startService({
    API_KEY,
    DATA_DIR: path.join(root, 'data'),
    PLUGINS_DIR: plugins,
    CONFIG_PATH: config,
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
  });
  const useWrk = hasWrk();
  // CPU per answered request of the process tree under load: on a shared machine steadier than requests/s, and what
  // bounds requests/s on a dedicated one.
  const measured = async (pid: number, run: () => Promise<DriverResult>) => {
    const cpu0 = treeCpuSeconds(pid);
    const r = await run();
    return { r, cpuUs: r.requests ? ((treeCpuSeconds(pid) - cpu0) * 1e6) / r.requests : NaN };
  };
  const load = (
    url: string,
    pathname: string,
    headers: Record<string, string>,
    inflight: number,
    label: string,
  ): Promise<DriverResult> =>
    useWrk
      ? wrk({ url, path: pathname, headers, body: BODY, inflight, durationMs: options.durationMs, label })
      : spawnDriver({
          url,
          method: 'POST',
          path: pathname,
          headers,
          body: BODY,
          inflight,
          durationMs: options.durationMs,
          warmupMs: 300,
          label,
        });
  try {
    await echoCallable(svc.url);
    // The standby runtime (when configured) boots 5 s after the runtime is ready: idle means after it.
    await new Promise((r) => setTimeout(r, options.idleWaitMs ?? 7000));
    const rssIdle = svc.processesMiB();
    // The floor's tree idles meanwhile (started with the service, not loaded yet): the memory targets' floor, same run.
    const floorIdle = treeRssMiB(pipeline.pid);
    log(`plugin path: idle tree ${rssLine(rssIdle)}; pipeline floor ${floorIdle.toFixed(0)} MiB`);
    const rows: Row[] = [];
    for (const inflight of [1, 64]) {
      log(`plugin path: floor and echo @${inflight} (${useWrk ? 'wrk' : 'undici driver'})`);
      const { r: f, cpuUs: fCpu } = await measured(floor.pid, () =>
        load(floor.url, '/echo', { 'content-type': 'application/json' }, inflight, `floor@${inflight}`),
      );
      const { r: p, cpuUs: pCpu } = await measured(pipeline.pid, () =>
        load(pipeline.url, '/echo', { 'content-type': 'application/json' }, inflight, `pipeline@${inflight}`),
      );
      const { r: e, cpuUs: eCpu } = await measured(svc.child.pid!, () =>
        load(svc.url, '/api/v1/plugins/echo/call', HEADERS, inflight, `echo@${inflight}`),
      );
      const driver = useWrk ? 'wrk' : 'undici';
      const cpuNote = (us: number) => `CPU ${us.toFixed(0)} µs per call`;
      rows.push({
        scenario: `HTTP floor (bare express 5, ${driver})`,
        inflight,
        requests: f.requests,
        errors: f.errors,
        rps: f.rps,
        p50: f.p50,
        p99: f.p99,
        max: f.max,
        cpuUsPerCall: fCpu,
        note: cpuNote(fCpu),
      });
      rows.push({
        scenario: `${PIPELINE_FLOOR} (${driver})`,
        inflight,
        requests: p.requests,
        errors: p.errors,
        rps: p.rps,
        p50: p.p50,
        p99: p.p99,
        max: p.max,
        ratioToHttpFloor: p.rps / f.rps,
        cpuUsPerCall: pCpu,
        note: cpuNote(pCpu),
      });
      const vsPipeline = `${(e.rps / p.rps).toFixed(2)} of the pipeline floor's calls/s, ${(eCpu / pCpu).toFixed(2)}x its CPU per call`;
      rows.push({
        scenario: `echo plugin (${driver})`,
        inflight,
        requests: e.requests,
        errors: e.errors,
        rps: e.rps,
        p50: e.p50,
        p99: e.p99,
        max: e.max,
        ratioToHttpFloor: e.rps / f.rps,
        cpuUsPerCall: eCpu,
        note: `${cpuNote(eCpu)}; ${vsPipeline}`,
      });
    }
    rows.push(await crossingsFloor(1, 5000), await crossingsFloor(64, options.hopCalls * 10));
    const rssAfter = svc.processesMiB();
    const floorAfter = treeRssMiB(pipeline.pid);
    log(`plugin path: tree after the load ${rssLine(rssAfter)}; pipeline floor ${floorAfter.toFixed(0)} MiB`);
    // What the tree keeps once the load is over: both processes give memory back after a few quiet seconds.
    const settleMs = options.settleMs ?? SETTLE_MS;
    await new Promise((r) => setTimeout(r, settleMs));
    const rssSettled = svc.processesMiB();
    log(`plugin path: tree ${settleMs / 1000} s after the load ${rssLine(rssSettled)}`);
    await svc.stop();
    log(`plugin path: the hops of ${options.hopCalls} echo calls (a service of its own, with bench/hop-probe.ts)`);
    const hops = await hopBreakdown({ root, plugins, config }, options.hopCalls);
    const floorRss = { idle: floorIdle, after: floorAfter };
    return { rows, hops, rssIdle, rssAfter, rssSettled, floorRss, driver: useWrk ? 'wrk' : 'undici' };
  } catch (err) {
    // A failed step says what the service was doing then (seen once in CI: its runtime gone, then its port closed).
    throw new Error(`${(err as Error).message}\n${svc.describe()}`, { cause: err });
  } finally {
    await svc.stop();
    await floor.stop();
    await pipeline.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

export function hopTable(h: HopBreakdown): string {
  const lines = h.hops.map((x) => `| ${x.hop} | ${x.ms.toFixed(3)} |`);
  return [
    '| hop (echo, 1 in flight, medians) | ms |',
    '|---|---:|',
    ...lines,
    `| **whole call, seen by the client** | **${h.total.toFixed(3)}** |`,
  ].join('\n');
}

if (import.meta.main) {
  const seconds = Number(process.argv[2] ?? 5);
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  log(
    `load average at the start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const r = await pluginPath({ durationMs: seconds * 1000, hopCalls: 2000, log });
  process.stdout.write(
    `\n${table(r.rows)}\n\n${r.hops ? hopTable(r.hops) : 'no hop timing (the probe recorded no complete call)'}\n\n`,
  );
  process.stdout.write(
    `tree RSS idle: ${rssLine(r.rssIdle)}\ntree RSS after: ${rssLine(r.rssAfter)}\ntree RSS ${SETTLE_MS / 1000} s after: ${rssLine(r.rssSettled)}\nload average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
}
