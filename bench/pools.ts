// Key pools of `npm run bench` (issue 44): one relayer id with 1, 4 and 16 keys on an anvil with 1 s blocks,
// max_pending_per_key 16. Each key may hold 16 transactions unmined (geth keeps 16 executable slots per account), so
// the sender keeps 16 × keys sends unmined: each of its slots sends, waits until the block poll sees its transaction
// mined, and sends again (a 503 NO_LANE_AVAILABLE, every key full, is retried). The one-key relayer has no
// max_pending_per_key (it is a pool's): the sender's 16 slots are its bound, freed when mined as a node's per-account
// slots are (a pool's max_pending_per_key frees a slot only once final). Reported per key count: sends submitted
// per second, send → mined p50/p99, and the service's, anvil's and the sender's CPU over the window, which name the
// limit reached (keys, service CPU, node CPU or the machine's cores).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { Pool } from 'undici';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet } from '../src/chains/evm/devnet.ts';
import type { Row } from './report.ts';
import { type RunningService, startService, treeCpuSeconds } from './service.ts';
import { startBlockWatch, type BlockWatch } from './block-watch.ts';

const CHAIN_ID = 31337;
const PER_KEY = 16;
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const BODY = JSON.stringify({ to: TO, value: 1, gas_limit: 21_000, speed: 'fast' });
/** A process this busy (of one core) is the limit. */
const FULL_CORE = 0.85;
/** A send's transaction not mined within this long fails the run (a lost send). */
const MINED_WITHIN_MS = 120_000;

export interface PoolRun {
  keys: number;
  seconds: number;
  sends: number;
  submittedPerSecond: number;
  sendToMinedMs: { p50: number; p99: number; max: number };
  /** Cores busy over the window: the service's process tree, anvil's, the sender's (this process). */
  cores: { service: number; anvil: number; sender: number };
  limit: string;
  /** Answers 503 (every key full), retried. */
  refused: number;
  errors: number;
  firstError?: string;
}

export interface PoolSummary {
  runs: PoolRun[];
  /** Per key count, the median run of the repeats. */
  byKeys: PoolRun[];
  /** The most keys' submitted/s over one key's (both measured), and the limit the most keys reached. */
  ratio?: { keys: number; times: number; limit: string };
}

/** Publicly derivable development keys, one per lane (never a real account). */
const keyOf = (i: number) => `0x${(0xb0010000 + i).toString(16).padStart(64, '0')}` as const;

/**
 * What limits a run: a process near a full core, else all of them filling the machine, else the keys: 16 unmined per
 * key and block. Answers 503 (the pool's max_pending_per_key reached) come when the sender sees a block before the
 * service's check has recorded its transactions mined, which frees their slots; they are retried.
 */
export function limitOf(cores: PoolRun['cores'], refused: number, machineCores = os.cpus().length): string {
  if (cores.service >= FULL_CORE) return 'service CPU';
  if (cores.anvil >= FULL_CORE) return "node's CPU";
  if (cores.service + cores.anvil + cores.sender >= FULL_CORE * machineCores) return "machine's cores";
  return refused > 0
    ? 'keys (16 unmined each; max_pending_per_key reached until the check saw a block)'
    : 'keys (16 unmined each)';
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

function poolConfig(devnetUrl: string, keyCounts: readonly number[]): unknown {
  const signers: unknown[] = [];
  const relayers: unknown[] = [];
  let next = 0;
  for (const n of keyCounts) {
    const ids = Array.from({ length: n }, () => `key-${next++}`);
    for (const id of ids)
      signers.push({ id, type: 'local', development: true, private_key: keyOf(Number(id.slice(4))) });
    relayers.push({
      id: `pool-${n}`,
      name: `pool of ${n}`,
      network: 'bench',
      ...(n === 1 ? { signer_id: ids[0] } : { signer_ids: ids, max_pending_per_key: PER_KEY }),
    });
  }
  return {
    networks: [
      {
        type: 'evm',
        network: 'bench',
        chain_id: CHAIN_ID,
        required_confirmations: 1,
        symbol: 'ETH',
        average_blocktime_ms: 1000,
        features: ['eip1559'],
        rpc_urls: [devnetUrl],
        rpc_batch: true,
      },
    ],
    signers,
    relayers,
    notifications: [],
    plugins: [],
  };
}

interface Ctx {
  svc: RunningService;
  http: Pool;
  headers: Record<string, string>;
  watch: BlockWatch;
  anvilPid: number;
}

/** One slot of the sender: send, wait for the transaction mined, again, until `stopAt`. */
async function slot(ctx: Ctx, relayerId: string, stopAt: number, out: SlotOut): Promise<void> {
  while (Date.now() < stopAt) {
    const at = performance.now();
    let status = 0;
    let text = '';
    try {
      const res = await ctx.http.request({
        method: 'POST',
        path: `/api/v1/relayers/${relayerId}/transactions`,
        headers: ctx.headers,
        body: BODY,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      text = String(err);
    }
    if (status !== 200) {
      if (status === 503) out.refused++;
      else {
        out.errors++;
        out.firstError ??= `${status} ${text.slice(0, 200)}`;
      }
      await pause(100);
      continue;
    }
    const { from, nonce } = (JSON.parse(text) as { data: { from: string; nonce: number } }).data;
    out.sends++;
    const minedAt = await ctx.watch.mined(from, nonce, MINED_WITHIN_MS);
    if (minedAt === null) {
      out.errors++;
      out.firstError ??= `${from} nonce ${nonce} not mined within ${MINED_WITHIN_MS / 1000} s`;
    } else out.latencies.push(minedAt - at);
  }
}

interface SlotOut {
  sends: number;
  refused: number;
  errors: number;
  firstError?: string;
  latencies: number[];
}

/** The pool's transactions created since `t0` (newest first: paged until older ones), their times in ms. */
async function sentTimes(ctx: Ctx, relayerId: string, t0: number): Promise<number[]> {
  const sent: number[] = [];
  for (let page = 1; ; page++) {
    const res = await ctx.http.request({
      method: 'GET',
      path: `/api/v1/relayers/${relayerId}/transactions?per_page=100&page=${page}`,
      headers: ctx.headers,
    });
    const { data } = (await res.body.json()) as { data: Array<{ created_at: string; sent_at: string | null }> };
    for (const t of data) if (Date.parse(t.created_at) >= t0 && t.sent_at) sent.push(Date.parse(t.sent_at));
    if (data.length < 100 || data.every((t) => Date.parse(t.created_at) < t0)) return sent;
  }
}

async function runOnce(ctx: Ctx, keys: number, seconds: number): Promise<PoolRun> {
  const relayerId = `pool-${keys}`;
  const out: SlotOut = { sends: 0, refused: 0, errors: 0, latencies: [] };
  const t0 = Date.now();
  const stopAt = t0 + seconds * 1000;
  const cpu0 = { service: ctx.svc.cpuSeconds(), anvil: treeCpuSeconds(ctx.anvilPid), sender: process.cpuUsage() };
  let cores: PoolRun['cores'] = { service: 0, anvil: 0, sender: 0 };
  // CPU over the window only: the drain after it (the last sends mined) is not the load's.
  const windowEnd = pause(seconds * 1000).then(() => {
    const s = (Date.now() - t0) / 1000;
    const self = process.cpuUsage(cpu0.sender);
    cores = {
      service: (ctx.svc.cpuSeconds() - cpu0.service) / s,
      anvil: (treeCpuSeconds(ctx.anvilPid) - cpu0.anvil) / s,
      sender: (self.user + self.system) / 1e6 / s,
    };
  });
  await Promise.all([windowEnd, ...Array.from({ length: PER_KEY * keys }, () => slot(ctx, relayerId, stopAt, out))]);
  const submitted = (await sentTimes(ctx, relayerId, t0)).filter((at) => at <= stopAt).length;
  const sorted = out.latencies.sort((a, b) => a - b);
  return {
    keys,
    seconds,
    sends: out.sends,
    submittedPerSecond: submitted / seconds,
    sendToMinedMs: { p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), max: sorted.at(-1) ?? 0 },
    cores,
    limit: limitOf(cores, out.refused),
    refused: out.refused,
    errors: out.errors,
    ...(out.firstError ? { firstError: out.firstError } : {}),
  };
}

/** Per key count, the run with the median submitted/s. */
function medians(runs: PoolRun[], keyCounts: readonly number[]): PoolRun[] {
  return keyCounts.map((k) => {
    const of = runs.filter((r) => r.keys === k).sort((a, b) => a.submittedPerSecond - b.submittedPerSecond);
    return of[Math.floor((of.length - 1) / 2)]!;
  });
}

export async function poolScenario(options: {
  root: string;
  apiKey: string;
  seconds: number;
  repeats: number;
  keys: readonly number[];
  /** Seconds of sends on the largest pool before the measured runs (a cold service compiles its send path). */
  warmupSeconds?: number;
  log: (m: string) => void;
}): Promise<{ rows: Row[]; summary: PoolSummary }> {
  const { log, keys } = options;
  const devnet = await startDevnet({ chainId: CHAIN_ID, blockTimeMs: 1000 });
  let svc: RunningService | undefined;
  let watch: BlockWatch | undefined;
  const http = new Pool(devnet.url, { connections: 1 });
  try {
    const total = keys.reduce((n, k) => n + k, 0);
    for (let i = 0; i < total; i++) {
      const wei = `0x${(10n ** 21n).toString(16)}`;
      await http
        .request({
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'anvil_setBalance',
            params: [privateKeyToAccount(keyOf(i)).address, wei],
          }),
        })
        .then((r) => r.body.text());
    }
    const dir = path.join(options.root, 'pools');
    mkdirSync(dir, { recursive: true });
    const configPath = path.join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify(poolConfig(devnet.url, keys)));
    svc = await startService({
      API_KEY: options.apiKey,
      DATA_DIR: path.join(dir, 'data'),
      PLUGINS_DIR: path.join(dir, 'plugins'),
      CONFIG_PATH: configPath,
      RATE_LIMIT_RPS: '100000000',
      RATE_LIMIT_BURST: '100000000',
    });
    watch = startBlockWatch(devnet.url);
    const ctx: Ctx = {
      svc,
      http: new Pool(svc.url, { connections: PER_KEY * Math.max(...keys), pipelining: 1 }),
      headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
      watch,
      anvilPid: devnet.pid,
    };
    try {
      if (options.warmupSeconds) {
        log(`pools: ${options.warmupSeconds} s warm-up on ${Math.max(...keys)} keys (not measured)`);
        await runOnce(ctx, Math.max(...keys), options.warmupSeconds);
      }
      const runs: PoolRun[] = [];
      for (let r = 0; r < options.repeats; r++)
        for (const k of keys) {
          log(`pools: ${k} key${k === 1 ? '' : 's'}, ${options.seconds} s (repeat ${r + 1} of ${options.repeats})`);
          runs.push(await runOnce(ctx, k, options.seconds));
        }
      return report(runs, keys);
    } finally {
      await ctx.http.close();
    }
  } finally {
    watch?.stop();
    await http.close();
    await svc?.stop();
    await devnet.stop();
  }
}

function report(runs: PoolRun[], keys: readonly number[]): { rows: Row[]; summary: PoolSummary } {
  const byKeys = medians(runs, keys);
  const one = byKeys.find((r) => r.keys === 1);
  const most = byKeys.at(-1)!;
  const ratio =
    one && most.keys > 1 && one.submittedPerSecond > 0
      ? { keys: most.keys, times: most.submittedPerSecond / one.submittedPerSecond, limit: most.limit }
      : undefined;
  const c = (x: number) => x.toFixed(2);
  const rows: Row[] = byKeys.map((r) => ({
    scenario: `key pool, ${r.keys} key${r.keys === 1 ? '' : 's'} → submitted (anvil 1 s blocks, ${PER_KEY} unmined per key)`,
    inflight: PER_KEY * r.keys,
    requests: r.sends,
    errors: r.errors,
    rps: r.submittedPerSecond,
    p50: r.sendToMinedMs.p50,
    p99: r.sendToMinedMs.p99,
    max: r.sendToMinedMs.max,
    note: `p50/p99: send → mined; cores busy: service ${c(r.cores.service)}, anvil ${c(r.cores.anvil)}, sender ${c(r.cores.sender)}; limit: ${r.limit}; ${r.refused} answers 503 retried after 100 ms`,
  }));
  return { rows, summary: { runs, byKeys, ...(ratio ? { ratio } : {}) } };
}

/** One line for the output: the ratio and the limit it reached. */
export function ratioLine(summary: PoolSummary): string {
  const r = summary.ratio;
  if (!r) return 'key pools: no ratio (1 key and more keys were not both measured)';
  return `key pools: ${r.keys} keys submit ${r.times.toFixed(1)}× one key's sends per second (target ≥ 12×); limit reached at ${r.keys} keys: ${r.limit}`;
}
