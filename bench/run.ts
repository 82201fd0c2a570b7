// `npm run bench [-- --quick | --smoke]`: drives the real service over HTTP and writes bench/results/.
// Every plugin figure is set against floors measured in the same run (a bare express route, a raw isolate call).
// `npm run bench -- --only=neighbour` (the noisy and crashing neighbours) or `--only=crashing-neighbour` (the OOM loop
// alone) runs just that against a fresh service and prints its table; it writes no record.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { spawnDriver, type DriverResult, type DriverSpec } from './driver.ts';
import { startService, type RunningService } from './service.ts';
import { seedTransactions } from './seed-transactions.ts';
import { figuresSection, SETTLE_MS, table, targetsTable, updateFigures, writeResults, type Row } from './report.ts';
import { crashingNeighbour, noisyNeighbour } from './neighbour.ts';
import { runtimeRestart } from './restart.ts';
import { chainSends } from './chain-sends.ts';
import { chainScenario, type ChainSummary } from './chain.ts';
import { poolScenario, ratioLine } from './pools.ts';
import { instanceScenarios } from './instances.ts';
import { signerLatency } from './signer-latency.ts';
import { hopTable, pluginPath, rssLine } from './plugin-path.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const ECHO_BODY = JSON.stringify({ params: { hello: 'world', n: 1 } });

type Mode = 'full' | 'quick' | 'smoke';
const args = process.argv.slice(2);
const mode: Mode = args.includes('--smoke') ? 'smoke' : args.includes('--quick') ? 'quick' : 'full';
const DEFAULT_OUT = path.join(HERE, 'results');
const outDir = path.resolve(args.find((a) => a.startsWith('--out='))?.slice(6) ?? DEFAULT_OUT);
const only = args.find((a) => a.startsWith('--only='))?.slice(7);

const PLAN = {
  full: {
    durationMs: 8000,
    warmupMs: 1500,
    inflights: [1, 16, 64],
    listRows: 1_000_000,
    listPage: 10_000,
    listCount: 300,
    chainSends: 200,
  },
  quick: {
    durationMs: 1500,
    warmupMs: 300,
    inflights: [1, 16, 64],
    listRows: 100_000,
    listPage: 1_000,
    listCount: 100,
    chainSends: 50,
  },
  // The plumbing check run by the test suite: a handful of requests, no timing meaning.
  smoke: { count: 20, warmupMs: 0, inflights: [1, 4], listRows: 200, listPage: 2, listCount: 5, chainSends: 4 },
}[mode];
/** The chain scenario: sends measured against anvil's raw intake, and pending transactions tracked. */
const CHAIN = {
  full: { sends: 2_000, warmupSends: 1_000, pending: 10_000, monitorMs: 20_000 },
  quick: { sends: 500, warmupSends: 200, pending: 2_000, monitorMs: 5_000 },
  smoke: { sends: 10, warmupSends: 0, pending: 20, monitorMs: 500 },
}[mode];

/** Key pools (bench/pools.ts): seconds per run, runs per key count (alternated), key counts. */
const POOLS = {
  full: { seconds: 20, repeats: 3, keys: [1, 4, 16], warmupSeconds: 3 },
  quick: { seconds: 6, repeats: 1, keys: [1, 4, 16], warmupSeconds: 2 },
  smoke: undefined,
}[mode];

const PLUGIN_SCENARIOS = [
  { scenario: 'echo plugin', plugin: 'echo' },
  { scenario: 'log 10 lines (emit_logs)', plugin: 'log10' },
  { scenario: 'CPU loop 1e5', plugin: 'cpu' },
  { scenario: 'sendTransaction (emit_traces)', plugin: 'send' },
  { scenario: 'KV get + set', plugin: 'kv' },
];

const log = (msg: string) => process.stderr.write(`${msg}\n`);

async function drive(
  spec: Omit<DriverSpec, 'durationMs' | 'count' | 'warmupMs'> & { count?: number },
): Promise<DriverResult> {
  return spawnDriver({
    ...spec,
    warmupMs: PLAN.warmupMs,
    ...('count' in PLAN
      ? { count: spec.count ?? PLAN.count }
      : spec.count
        ? { count: spec.count }
        : { durationMs: PLAN.durationMs }),
  });
}

function row(scenario: string, inflight: number, r: DriverResult, floor?: number, note?: string): Row {
  if (r.errors) log(`  ! ${scenario} @${inflight}: ${r.errors} errors, first: ${r.firstError}`);
  return {
    scenario,
    inflight,
    requests: r.requests,
    errors: r.errors,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    ...(floor ? { ratioToHttpFloor: r.rps / floor } : {}),
    ...(note ? { note } : {}),
  };
}

async function httpFloor(): Promise<Row[]> {
  const child = spawn(process.execPath, [path.join(HERE, 'floors/express-floor.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${(JSON.parse(String(chunk)) as { port: number }).port}`;
  const rows: Row[] = [];
  for (const inflight of PLAN.inflights) {
    log(`HTTP floor @${inflight}`);
    rows.push(
      row(
        'HTTP floor (bare express 5)',
        inflight,
        await drive({
          url,
          method: 'POST',
          path: '/echo',
          headers: { 'content-type': 'application/json' },
          body: ECHO_BODY,
          inflight,
          label: `floor@${inflight}`,
        }),
      ),
    );
  }
  child.kill('SIGTERM');
  await once(child, 'exit');
  return rows;
}

function sandboxFloor(): Row {
  log('sandbox floor');
  const iterations = mode === 'smoke' ? 50 : mode === 'quick' ? 5000 : 50000;
  const out = execFileSync(
    process.execPath,
    ['--no-node-snapshot', path.join(HERE, 'floors/sandbox-floor.ts'), String(iterations)],
    { encoding: 'utf8' },
  );
  const r = JSON.parse(out) as DriverResult;
  return {
    scenario: 'sandbox floor (isolate call, no pool, no HTTP)',
    inflight: 0,
    requests: r.requests,
    errors: 0,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
  };
}

async function waitForPlugin(url: string, id: string, timeoutMs = 15000): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const res = await fetch(`${url}/api/v1/plugins/${id}/call`, { method: 'POST', headers: AUTH, body: ECHO_BODY });
    const text = await res.text();
    if (res.status === 200) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`plugin ${id} not callable: ${res.status} ${text}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function coldStart(svc: RunningService, pluginsDir: string): Promise<Row> {
  const times: number[] = [];
  const runs = mode === 'full' ? 5 : 2;
  for (let i = 0; i < runs; i++) {
    const id = `cold_${process.pid}_${i}`;
    const t0 = performance.now();
    writeFileSync(
      path.join(pluginsDir, `${id}.ts`),
      `export async function handler(ctx: { params: unknown }) { return { cold: ${i}, params: ctx.params }; }\n`,
    );
    await waitForPlugin(svc.url, id);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  log(`cold start: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  return {
    scenario: 'cold start (file dropped → first successful call)',
    inflight: 0,
    requests: runs,
    errors: 0,
    rps: 0,
    p50: times[Math.floor(times.length / 2)]!,
    p99: times[times.length - 1]!,
    max: times[times.length - 1]!,
  };
}

async function listing(svc: RunningService, dataDir: string): Promise<Row[]> {
  const sent = await fetch(`${svc.url}/api/v1/relayers/sepolia-example/transactions`, {
    method: 'POST',
    headers: AUTH,
    body: JSON.stringify({ value: 1, to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', speed: 'fast' }),
  });
  const template = ((await sent.json()) as { data: Record<string, unknown> }).data;
  const listed = (await (
    await fetch(`${svc.url}/api/v1/relayers/sepolia-example/transactions?per_page=0`, { headers: AUTH })
  ).json()) as { pagination: { total_items: number } };
  log(`seeding up to ${PLAN.listRows.toLocaleString('en-US')} transactions`);
  // Seeded through a second connection while the service runs, as WAL allows; the service keeps its counters in the store.
  const db = new Database(path.join(dataDir, 'relaybox.sqlite'));
  db.pragma('busy_timeout = 10000');
  seedTransactions(db, 'sepolia-example', template, Math.max(0, PLAN.listRows - listed.pagination.total_items));
  db.close();
  const rows: Row[] = [];
  for (const page of [1, PLAN.listPage]) {
    const label = `list transactions, page ${page.toLocaleString('en-US')} of ${PLAN.listRows.toLocaleString('en-US')} rows`;
    log(label);
    const r = await drive({
      url: svc.url,
      method: 'GET',
      path: `/api/v1/relayers/sepolia-example/transactions?page=${page}&per_page=10`,
      headers: AUTH,
      inflight: 1,
      count: PLAN.listCount,
      label,
    });
    rows.push(row(label, 1, r));
  }
  return rows;
}

function benchConfig(root: string): string {
  // The shipped example, minus the webhook: a dead receiver would only add retry noise to the figures.
  const config = JSON.parse(readFileSync(path.join(ROOT, 'config.example.json'), 'utf8')) as {
    relayers: Array<{ notification_id?: string | null }>;
  };
  for (const r of config.relayers) delete r.notification_id;
  const file = path.join(root, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** `--only=neighbour|crashing-neighbour`: that scenario alone, on a fresh service with the bench plugins. */
async function onlyNeighbour(which: string): Promise<void> {
  if (which !== 'neighbour' && which !== 'crashing-neighbour')
    throw new Error(`--only=${which}: expected neighbour or crashing-neighbour`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relaybox-bench-'));
  const plugins = path.join(dir, 'plugins');
  mkdirSync(plugins, { recursive: true });
  for (const f of readdirSync(path.join(HERE, 'plugins')))
    copyFileSync(path.join(HERE, 'plugins', f), path.join(plugins, f));
  const service = await startService({
    API_KEY,
    DATA_DIR: path.join(dir, 'data'),
    PLUGINS_DIR: plugins,
    CONFIG_PATH: benchConfig(dir),
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
    PLUGIN_CONTEXT_MODE: process.env.PLUGIN_CONTEXT_MODE ?? 'warm',
  });
  try {
    await waitForPlugin(service.url, 'echo');
    // The standby runtime boots 5 s after the runtime is ready: the crashes must find it there, as in production.
    await new Promise((r) => setTimeout(r, 8000));
    const found: Row[] =
      which === 'neighbour' ? (await noisyNeighbour(service.url, AUTH, ECHO_BODY, drive, log)).rows : [];
    found.push((await crashingNeighbour(service.url, AUTH, ECHO_BODY, log)).row);
    process.stdout.write(
      `\n${table(found)}\n\nload average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (only) {
  log(
    `load average at the start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await onlyNeighbour(only);
  process.exit();
}

const started = performance.now();
const root = mkdtempSync(path.join(os.tmpdir(), 'relaybox-bench-'));
const dataDir = path.join(root, 'data');
const pluginsDir = path.join(root, 'plugins');
mkdirSync(pluginsDir, { recursive: true });
for (const f of readdirSync(path.join(HERE, 'plugins')))
  copyFileSync(path.join(HERE, 'plugins', f), path.join(pluginsDir, f));

const rows: Row[] = [];
let svc: RunningService | undefined;
try {
  rows.push(...(await httpFloor()));
  rows.push(sandboxFloor());
  // Echo against the bare express route with wrk, the hop breakdown, the tree's RSS: a service of its own.
  const path0 = await pluginPath({
    durationMs: 'count' in PLAN ? 1000 : PLAN.durationMs,
    hopCalls: mode === 'smoke' ? 20 : 2000,
    idleWaitMs: mode === 'smoke' ? 0 : 7000,
    settleMs: mode === 'smoke' ? 0 : SETTLE_MS,
    log,
  });
  rows.push(...path0.rows);
  const floorAt = (n: number) => rows.find((r) => r.scenario.startsWith('HTTP floor') && r.inflight === n)?.rps;

  svc = await startService({
    API_KEY,
    DATA_DIR: dataDir,
    PLUGINS_DIR: pluginsDir,
    CONFIG_PATH: benchConfig(root),
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
    PLUGIN_CONTEXT_MODE: process.env.PLUGIN_CONTEXT_MODE ?? 'warm',
  });
  for (const { plugin } of PLUGIN_SCENARIOS) await waitForPlugin(svc.url, plugin);
  // The standby runtime process boots 5 s after the runtime is ready: let it, so it does not land in a measurement.
  if (mode !== 'smoke') await new Promise((r) => setTimeout(r, 8000));
  const rssBefore = svc.rssMiB();
  const rssBreakdownBefore = svc.rssBreakdownMiB();
  const processesBefore = svc.processesMiB();
  const cpuBefore = svc.cpuSeconds();

  let driverCpu = 0;
  for (const { scenario, plugin } of PLUGIN_SCENARIOS) {
    for (const inflight of PLAN.inflights) {
      log(`${scenario} @${inflight}`);
      const r = await drive({
        url: svc.url,
        method: 'POST',
        path: `/api/v1/plugins/${plugin}/call`,
        headers: AUTH,
        body: ECHO_BODY,
        inflight,
        label: `${plugin}@${inflight}`,
      });
      driverCpu += r.driverCpuSeconds;
      rows.push(row(scenario, inflight, r, floorAt(inflight)));
    }
  }
  log('notification creation @16');
  const notif = await drive({
    url: svc.url,
    method: 'POST',
    path: '/api/v1/notifications',
    headers: AUTH,
    body: JSON.stringify({ url: 'http://203.0.113.9/hook' }),
    inflight: 16,
    label: 'notifications@16',
  });
  rows.push(row('create notification', 16, notif));
  rows.push(await coldStart(svc, pluginsDir));
  const rssAfterPlugins = svc.rssMiB();
  const rssBreakdownAfterPlugins = svc.rssBreakdownMiB();
  const processesAfterPlugins = svc.processesMiB();
  const serviceCpu = svc.cpuSeconds() - cpuBefore;
  if (mode !== 'smoke') await new Promise((r) => setTimeout(r, SETTLE_MS));
  const processesSettledAfterPlugins = svc.processesMiB();
  rows.push(...(await listing(svc, dataDir)));
  const rssAfter = svc.rssMiB();
  // Its own devnet and service process (chain load must not share the plugin service's figures); no warm-up: every raw transaction is usable once.
  const chain = await chainScenario({
    root,
    apiKey: API_KEY,
    ...CHAIN,
    drive: (spec) => spawnDriver({ ...spec, warmupMs: 0 }),
    log,
  });
  rows.push(...chain.rows);
  // Its own devnet (1 s blocks) and service. Not in smoke runs: test/bench/bench-plumbing.test.ts runs it on its own.
  const pools = POOLS && (await poolScenario({ root, apiKey: API_KEY, ...POOLS, log }));
  if (pools) rows.push(...pools.rows);
  // Last: its hangers keep their slots until the service stops.
  const neighbour = await noisyNeighbour(svc.url, AUTH, ECHO_BODY, drive, log);
  rows.push(...neighbour.rows);
  // Not in smoke runs: a 12 s window of runtime crashes is no plumbing check (test/security/crashing-tenant.test.ts is).
  const crashing = mode === 'smoke' ? undefined : await crashingNeighbour(svc.url, AUTH, ECHO_BODY, log);
  if (crashing) rows.push(crashing.row);
  rows.push(await runtimeRestart(svc.url, AUTH, svc.child.pid!, pluginsDir, mode === 'full' ? 3 : 1, log));
  // Its own service process, relaying to the simulated Solana and Stellar networks.
  rows.push(...(await chainSends(PLAN.chainSends, 16, log)));
  log('signer latency: local keys beside a signer answering in 20 ms');
  rows.push(
    ...(await signerLatency({
      inflights: PLAN.inflights,
      ...('count' in PLAN ? { count: PLAN.count } : { durationMs: PLAN.durationMs }),
      log,
    })),
  );
  await svc.stop();
  // Several instances on PostgreSQL + Redis against SQLite (their own services; skipped without a PostgreSQL server).
  // Not in smoke runs: starting five services is minutes of plumbing on a small machine.
  if (mode !== 'smoke') {
    const inst =
      mode === 'full'
        ? { durationMs: PLAN.durationMs, warmupMs: PLAN.warmupMs, inflight: 32, events: 5000 }
        : { durationMs: PLAN.durationMs, warmupMs: PLAN.warmupMs, inflight: 32, events: 1000 };
    rows.push(...(await instanceScenarios(inst, log)));
  }

  const record = {
    mode,
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      platform: `${os.platform()} ${os.release()}`,
    },
    node: process.version,
    commit: gitCommit(),
    contextMode: process.env.PLUGIN_CONTEXT_MODE ?? 'warm',
    noisyNeighbour: { p99Ratio: neighbour.p99Ratio, noise: neighbour.noise },
    ...(crashing
      ? {
          crashingNeighbour: {
            share200: crashing.figures.share,
            p99: crashing.figures.result.p99,
            oom: crashing.figures.noise.oomStatuses,
          },
        }
      : {}),
    service: {
      rssMiBBefore: rssBefore,
      rssMiBAfterPluginScenarios: rssAfterPlugins,
      rssMiBAfter: rssAfter,
      rssBreakdownBefore,
      rssBreakdownAfterPlugins,
      processesBefore,
      processesAfterPlugins,
      processesSettledAfterPlugins,
      cpuSecondsDuringPluginScenarios: serviceCpu,
    },
    pluginPath: {
      driver: path0.driver,
      hops: path0.hops,
      rssIdle: path0.rssIdle,
      rssAfter: path0.rssAfter,
      rssSettled: path0.rssSettled,
      floorRss: path0.floorRss,
    },
    driverCpuSeconds: driverCpu,
    chain: chain.summary satisfies ChainSummary,
    ...(pools ? { pools: { byKeys: pools.summary.byKeys, ratio: pools.summary.ratio, runs: pools.summary.runs } } : {}),
    rows,
  };
  const files = writeResults(outDir, record.date.replace(/[:.]/g, '-'), record);
  // Only a full run into bench/results is what the docs show (smoke and quick runs, and --out=, leave them alone).
  if (mode === 'full' && outDir === DEFAULT_OUT) {
    const doc = path.join(ROOT, 'docs', 'performance.md');
    const fromDocs = (f: string) => path.relative(path.dirname(doc), f);
    updateFigures(doc, figuresSection(record, { json: fromDocs(files.json), svg: fromDocs(files.svg) }));
    process.stdout.write(`docs/performance.md: figures rewritten from this run\n`);
  }
  process.stdout.write(`\n${table(rows)}\n\n`);
  const split = (b: { http: number; runtime: number }) => `HTTP ${b.http.toFixed(0)} + runtime ${b.runtime.toFixed(0)}`;
  process.stdout.write(
    `service RSS: ${rssBefore.toFixed(0)} MiB before (${split(rssBreakdownBefore)}), ${rssAfterPlugins.toFixed(0)} MiB after the plugin scenarios (${split(rssBreakdownAfterPlugins)}), ${rssAfter.toFixed(0)} MiB after the list scenario\n`,
  );
  process.stdout.write(
    `CPU seconds during plugin scenarios: service ${serviceCpu.toFixed(1)}, driver ${driverCpu.toFixed(1)}\n`,
  );
  process.stdout.write(
    `plugin path service tree: idle ${rssLine(path0.rssIdle)}; after wrk ${rssLine(path0.rssAfter)} (${SETTLE_MS / 1000} s later ${rssLine(path0.rssSettled)}); after the plugin scenarios ${rssLine(processesAfterPlugins)} (${SETTLE_MS / 1000} s later ${rssLine(processesSettledAfterPlugins)})\n`,
  );
  if (path0.hops) process.stdout.write(`\n${hopTable(path0.hops)}\n\n`);
  process.stdout.write(`${targetsTable(record)}\n\n`);
  if (pools) process.stdout.write(`${ratioLine(pools.summary)}\n\n`);
  process.stdout.write(
    `results: ${path.relative(ROOT, files.json)}, chart: ${path.relative(ROOT, files.svg)}; ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  const errors = rows.reduce((n, r) => n + r.errors, 0);
  if (errors) {
    process.stderr.write(`${errors} requests failed\n`);
    process.exitCode = 1;
  }
} finally {
  await svc?.stop();
  rmSync(root, { recursive: true, force: true });
}
