// Bench output: the table on stdout, the JSON record and an SVG chart in bench/results/, the figures of docs/performance.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Row {
  scenario: string;
  inflight: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** calls/s divided by the HTTP floor's calls/s at the same in-flight count, measured in this run. */
  ratioToHttpFloor?: number;
  /** CPU of the process tree per answered request, where measured (also in `note`). */
  cpuUsPerCall?: number;
  note?: string;
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

export function table(rows: Row[]): string {
  const head = '| scenario | in flight | calls/s | vs HTTP floor | p50 ms | p99 ms | max ms | requests | errors |';
  const sep = '|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) =>
      `| ${r.scenario}${r.note ? ` (${r.note})` : ''} | ${r.inflight} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.ratioToHttpFloor === undefined ? '' : fmt(r.ratioToHttpFloor)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.requests} | ${r.errors} |`,
  );
  return [head, sep, ...lines].join('\n');
}

const COLORS = ['#222222', '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

/** Throughput versus in-flight requests, one line per scenario; x is log-scaled (1, 16, 64). */
export function chart(rows: Row[], title: string): string {
  const series = new Map<string, Row[]>();
  for (const r of rows) if (r.inflight > 0) series.set(r.scenario, [...(series.get(r.scenario) ?? []), r]);
  const multi = [...series].filter(([, rs]) => rs.length > 1);
  const W = 760,
    H = 420,
    L = 70,
    R = 230,
    T = 40,
    B = 50;
  const xs = [...new Set(multi.flatMap(([, rs]) => rs.map((r) => r.inflight)))].sort((a, b) => a - b);
  const maxY = Math.max(1, ...multi.flatMap(([, rs]) => rs.map((r) => r.rps))) * 1.1;
  const x = (v: number) =>
    L + (xs.length < 2 ? 0 : (Math.log(v / xs[0]!) / Math.log(xs[xs.length - 1]! / xs[0]!)) * (W - L - R));
  const y = (v: number) => H - B - (v / maxY) * (H - T - B);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${L}" y="22" font-size="15">${title}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (maxY / 5) * i;
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${L - 8}" y="${y(v) + 4}" text-anchor="end">${Math.round(v)}</text>`,
    );
  }
  for (const v of xs) parts.push(`<text x="${x(v)}" y="${H - B + 18}" text-anchor="middle">${v}</text>`);
  parts.push(
    `<text x="${(L + W - R) / 2}" y="${H - 10}" text-anchor="middle">requests in flight</text>`,
    `<text x="16" y="${(T + H - B) / 2}" transform="rotate(-90 16 ${(T + H - B) / 2})" text-anchor="middle">calls/s</text>`,
  );
  multi.forEach(([name, rs], i) => {
    const color = COLORS[i % COLORS.length];
    const dash = name.includes('floor') ? ' stroke-dasharray="6 4"' : '';
    const pts = rs.map((r) => `${x(r.inflight)},${y(r.rps)}`).join(' ');
    parts.push(`<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    for (const r of rs) parts.push(`<circle cx="${x(r.inflight)}" cy="${y(r.rps)}" r="3" fill="${color}"/>`);
    parts.push(
      `<line x1="${W - R + 15}" x2="${W - R + 40}" y1="${T + 10 + i * 20}" y2="${T + 10 + i * 20}" stroke="${color}" stroke-width="2"${dash}/><text x="${W - R + 46}" y="${T + 14 + i * 20}">${name}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export function writeResults(
  dir: string,
  stamp: string,
  record: { rows: Row[] } & Record<string, unknown>,
): { json: string; svg: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${stamp}.json`);
  const svg = path.join(dir, `${stamp}.svg`);
  writeFileSync(json, JSON.stringify(record, null, 2) + '\n');
  writeFileSync(svg, chart(record.rows, `Relaybox plugin calls over HTTP (${String(record.mode)} run)`));
  return { json, svg };
}

/** What a full run records besides its rows (see run.ts). */
export interface RunRecord {
  rows: Row[];
  date: string;
  commit: string;
  node: string;
  contextMode: string;
  machine: { cpus: number; cpuModel?: string; memoryGiB: number };
  service: {
    rssMiBBefore: number;
    rssMiBAfterPluginScenarios: number;
    rssBreakdownBefore: { http: number; runtime: number };
    rssBreakdownAfterPlugins: { http: number; runtime: number };
    cpuSecondsDuringPluginScenarios: number;
    processesAfterPlugins?: ProcessRss[];
    /** The same, SETTLE_MS later. */
    processesSettledAfterPlugins?: ProcessRss[];
  };
  driverCpuSeconds: number;
  /** bench/plugin-path.ts: echo against the express floor (wrk), the hops of one call, the service tree's RSS. */
  pluginPath?: {
    driver: string;
    hops?: { calls: number; total: number; hops: Array<{ hop: string; ms: number }> };
    rssIdle: ProcessRss[];
    rssAfter: ProcessRss[];
    rssSettled?: ProcessRss[];
    /** The pipeline floor's tree in the same run: idle beside the service's idle read, and right after its own load. */
    floorRss?: { idle: number; after: number };
  };
  chain?: {
    rawIntakePerSecond: number;
    submittedPerSecond: number;
    submittedVsRaw: number;
    cpuMsPerSend?: number;
    writtenKiBPerSend?: number;
    cpuMs?: ChainCpu;
  };
  /** bench/pools.ts: the median run per key count, and the most keys' submitted/s over one key's. */
  pools?: {
    byKeys: Array<{ keys: number; submittedPerSecond: number; limit: string }>;
    ratio?: { keys: number; times: number; limit: string };
  };
}

/** bench/chain.ts's CPU (ms) per transaction of each party on the shared cores. */
export interface ChainCpu {
  raw: { anvil: number; anvilMined: number; driver: number };
  send: { service: number; anvil: number; driver: number };
}

/** Threads that carry a plugin call's work in the pipeline floor: the HTTP process, the runtime process, 2 workers. */
export const PIPELINE_THREADS = 4;

/**
 * What the floors allow each target, from the same run. Bare express runs on one thread, so at 64 connections its
 * calls/s are what one core gives at its CPU per call. The pipeline floor (and the echo call) spread their CPU over
 * PIPELINE_THREADS threads in two processes, which the machine's `cores` run at once: at the floor's CPU per call the
 * cores carry at most min(cores, threads) / CPU calls a second (`ratio64`: that, over bare express's calls/s), and
 * the floor's own measured share (`pipelineRatio64`) is the proof it is reachable. Latency and CPU targets are set on
 * the floor: its p50 plus 0.1 ms (`p50Target`), 1.5 times its CPU per call at 64 (`cpuUsTarget64`).
 * For the sends, the service, anvil and the driver share `cores`: at their CPU per relayed send the cores carry at
 * most cores / (service + anvil + driver) sends a second (`sendRatio`: that, over the raw intake), and half the raw
 * intake leaves the service what remains of cores / (raw intake / 2) once anvil's and the driver's share is paid.
 */
export function floorLimits(
  rows: Row[],
  chain?: RunRecord['chain'],
  cores = 2,
): {
  p50Target?: number;
  ratio64?: number;
  pipelineRatio64?: number;
  cpuUsTarget64?: number;
  sendRatio?: number;
  serviceMsForHalf?: number;
} {
  const find = (prefix: string, inflight: number) =>
    rows.find((r) => r.scenario.startsWith(prefix) && r.inflight === inflight);
  const pipeline1 = find('pipeline floor', 1)?.p50;
  const bare64 = find('HTTP floor (bare express 5, ', 64)?.rps;
  const pipeline64 = find('pipeline floor', 64);
  const pipelineCpu = pipeline64?.cpuUsPerCall;
  const send = chain?.cpuMs?.send;
  const raw = chain?.rawIntakePerSecond;
  const coreMs = cores * 1000;
  return {
    p50Target: pipeline1 === undefined ? undefined : pipeline1 + 0.1,
    ratio64: bare64 && pipelineCpu ? (Math.min(cores, PIPELINE_THREADS) * 1e6) / pipelineCpu / bare64 : undefined,
    pipelineRatio64: bare64 && pipeline64 ? pipeline64.rps / bare64 : undefined,
    cpuUsTarget64: pipelineCpu === undefined ? undefined : 1.5 * pipelineCpu,
    sendRatio: send && raw ? coreMs / (send.service + send.anvil + send.driver) / raw : undefined,
    serviceMsForHalf: send && raw ? coreMs / (raw / 2) - send.anvil - send.driver : undefined,
  };
}

interface ProcessRss {
  role: string;
  rss: number;
}

/** The tree's RSS without the devnet the service launched (the issue's measure), the devnet named apart. */
export function treeLine(ps: ProcessRss[]): string {
  const own = ps.filter((p) => p.role !== 'devnet');
  const devnet = ps.filter((p) => p.role === 'devnet').reduce((n, p) => n + p.rss, 0);
  const sum = Math.round(own.reduce((n, p) => n + p.rss, 0));
  return `${sum} MiB (${own.map((p) => `${p.role} ${Math.round(p.rss)}`).join(', ')})${devnet ? `, devnet ${Math.round(devnet)} not counted` : ''}`;
}

/** How long after a load the tree's RSS is read again (both processes release after 3 quiet seconds). */
export const SETTLE_MS = 7000;
const later = `${SETTLE_MS / 1000} s later`;

function afterPlugins(s: RunRecord['service']): string {
  if (!s.processesAfterPlugins) return '-';
  const settled = s.processesSettledAfterPlugins ? `, ${treeLine(s.processesSettledAfterPlugins)} ${later}` : '';
  return `${treeLine(s.processesAfterPlugins)} right after the plugin scenarios${settled}`;
}

/** Issue 41's table (issue 27's before it): each target beside what this run measured, on the floors of the same run. */
export function targetsTable(record: RunRecord): string {
  const find = (prefix: string, inflight: number) =>
    record.rows.find((r) => r.scenario.startsWith(prefix) && r.inflight === inflight);
  const floor1 = find('HTTP floor (bare express 5, ', 1);
  const pipeline1 = find('pipeline floor', 1);
  const echo1 = find('echo plugin (', 1);
  const floor64 = find('HTTP floor (bare express 5, ', 64);
  const pipeline64 = find('pipeline floor', 64);
  const echo64 = find('echo plugin (', 64);
  const pg = find('sends, 1 hot relayer — PostgreSQL, 1 instance', 32);
  const p = record.pluginPath;
  const c = record.chain;
  const n = (x: number | undefined, d = 0) =>
    x === undefined ? '-' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const limits = floorLimits(record.rows, c, record.machine.cpus);
  const cpu = c?.cpuMs;
  return [
    '| measure | floor (same run) | Relaybox | target |',
    '|---|---:|---:|---:|',
    `| echo p50 at 1 connection | bare express ${n(floor1?.p50, 3)} ms; pipeline floor ${n(pipeline1?.p50, 3)} ms | ${n(echo1?.p50, 3)} ms | ≤ ${n(limits.p50Target, 3)} ms (floor + 0.1) |`,
    `| echo at 64 connections | bare express ${n(floor64?.rps)}/s; pipeline floor ${n(pipeline64?.rps)}/s (${n(limits.pipelineRatio64, 2)} of bare express)${limits.ratio64 !== undefined ? `, its CPU over ${Math.min(record.machine.cpus, PIPELINE_THREADS)} cores allows ${n(limits.ratio64, 2)}` : ''} | ${n(echo64?.rps)}/s (**${n(echo64?.ratioToHttpFloor, 2)}**) | ≥ 0.8 of bare express |`,
    `| service CPU per echo call at 64 | pipeline floor ${n(pipeline64?.cpuUsPerCall)} µs; bare express ${n(floor64?.cpuUsPerCall)} µs | ${n(echo64?.cpuUsPerCall)} µs | ≤ ${n(limits.cpuUsTarget64)} µs (1.5x the floor) |`,
    `| whole service tree RSS, idle (without the devnet) | ${p?.floorRss ? `pipeline floor ${n(p.floorRss.idle)} MiB` : '—'} | ${p ? treeLine(p.rssIdle) : '-'} | ≤ 200 MiB |`,
    `| RSS after load | ${p?.floorRss ? `pipeline floor ${n(p.floorRss.after)} MiB right after its wrk runs` : '—'} | ${p ? treeLine(p.rssAfter) : '-'} right after the wrk runs${p?.rssSettled ? `, ${treeLine(p.rssSettled)} ${later}` : ''}; ${afterPlugins(record.service)} | ≤ 300 MiB |`,
    `| EVM send → submitted, 16 in flight | anvil raw intake ${n(c?.rawIntakePerSecond)}/s${cpu ? `; CPU per relayed send: anvil ${n(cpu.send.anvil, 2)} ms, driver ${n(cpu.send.driver, 2)} ms: at these costs the cores carry at most ${n(limits.sendRatio, 2)} of the raw intake, and 0.5 needs the service at ${n(limits.serviceMsForHalf, 2)} ms per send or less` : ''} | ${n(c?.submittedPerSecond)}/s (**${n(c?.submittedVsRaw, 2)}**), ${n(c?.cpuMsPerSend, 2)} ms service CPU per send${c?.writtenKiBPerSend !== undefined ? ` (${n(c.writtenKiBPerSend, 1)} KiB written per send)` : ''} | ≥ 0.5 of anvil's raw intake; ≤ 1.1 ms CPU per send (0.8 of record) |`,
    `| sends on PostgreSQL, one hot relayer | — | ${pg ? `${n(pg.rps)}/s` : 'not run'} | ≥ 600/s |`,
    poolsLine(record.pools, n),
  ].join('\n');
}

/** Issue 44's target: one relayer id's sends submitted per second, its most keys over one key. */
function poolsLine(pools: RunRecord['pools'], n: (x: number | undefined, d?: number) => string): string {
  const one = pools?.byKeys.find((r) => r.keys === 1);
  const r = pools?.ratio;
  const most = r && pools?.byKeys.find((k) => k.keys === r.keys);
  return `| key pool sends → submitted, ${r?.keys ?? 16} keys over 1 (anvil 1 s blocks, max_pending_per_key 16) | 1 key ${one ? `${n(one.submittedPerSecond)}/s` : '-'} | ${most && r ? `${n(most.submittedPerSecond)}/s (**${n(r.times, 1)}×**), limit reached: ${r.limit}` : 'not run'} | ≥ 12× until the service's or the node's CPU is the limit |`;
}

function hopLines(h: NonNullable<NonNullable<RunRecord['pluginPath']>['hops']>): string {
  return [
    '| hop (echo, 1 in flight, medians) | ms |',
    '|---|---:|',
    ...h.hops.map((x) => `| ${x.hop} | ${x.ms.toFixed(3)} |`),
    `| whole call, seen by the client | ${h.total.toFixed(3)} |`,
  ].join('\n');
}

const FIGURES_START = '<!-- bench:figures:start (written by `npm run bench`; edits inside are overwritten) -->';
const FIGURES_END = '<!-- bench:figures:end -->';

/** The figures section of docs/performance.md for one run; `files` are paths relative to docs/. */
export function figuresSection(record: RunRecord, files: { json: string; svg: string }): string {
  const s = record.service;
  const mib = (n: number) => Math.round(n);
  return [
    FIGURES_START,
    `Produced by \`npm run bench\` (full run) on ${record.date.slice(0, 10)} at commit \`${record.commit.slice(0, 7)}\`: ` +
      `${record.machine.cpus} cores (${record.machine.cpuModel ?? 'unknown CPU'}), ${record.machine.memoryGiB} GiB, Node ${record.node}, ` +
      `${record.contextMode} contexts ([JSON](${files.json})).`,
    '',
    `![plugin calls per second versus requests in flight](${files.svg})`,
    '',
    table(record.rows),
    '',
    `Service RSS (HTTP process + runtime process tree): ${mib(s.rssMiBBefore)} MiB at start (${mib(s.rssBreakdownBefore.http)} + ${mib(s.rssBreakdownBefore.runtime)}), ` +
      `${mib(s.rssMiBAfterPluginScenarios)} MiB after the plugin scenarios (${mib(s.rssBreakdownAfterPlugins.http)} + ${mib(s.rssBreakdownAfterPlugins.runtime)}). ` +
      `CPU during the plugin scenarios: service ${Math.round(s.cpuSecondsDuringPluginScenarios)} s, load driver ${Math.round(record.driverCpuSeconds)} s.`,
    ...(record.pluginPath
      ? [
          '',
          `Issue 41's targets (echo rows: ${record.pluginPath.driver}, one connection and 64, alternated with the floor):`,
          '',
          targetsTable(record),
        ]
      : []),
    ...(record.pluginPath?.hops
      ? [
          '',
          `Where one echo call's time goes (${record.pluginPath.hops.calls} calls in a row, measured by bench/hop-probe.ts on the service's diagnostics channels):`,
          '',
          hopLines(record.pluginPath.hops),
        ]
      : []),
    FIGURES_END,
  ].join('\n');
}

/** Replaces the figures section of the performance document in place; throws if its markers are missing. */
export function updateFigures(docPath: string, section: string): void {
  const doc = readFileSync(docPath, 'utf8');
  const start = doc.indexOf(FIGURES_START);
  const end = doc.indexOf(FIGURES_END);
  if (start < 0 || end < start) throw new Error(`${docPath}: the bench:figures markers are missing`);
  writeFileSync(docPath, doc.slice(0, start) + section + doc.slice(end + FIGURES_END.length));
}
