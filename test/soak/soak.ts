// Soak test (npm run test:soak): mixed traffic against the service as `npm start` runs it, for SOAK_MINUTES
// (default 10), abusive plugins included. The RSS of the HTTP process and of the runtime tree is sampled every 10 s;
// the peak of the last minute must be within 10% of the peak of the first minute after warm-up, with no unexpected 5xx.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService } from '../../bench/service.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const DURATION_MS = MINUTES * 60_000;
const WARMUP_MS = Math.max(30_000, DURATION_MS * 0.2);
const SAMPLE_MS = 10_000;
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
/** Memory bombs end the runtime every BOMB_EVERY_MS, so RSS saws; "where it is" is the peak over a window this long. */
const WINDOW_MS = 60_000;
const API_KEY = 'soak-api-key-0123456789abcdef0123456789';

const PLUGINS: Record<string, string> = {
  'echo.ts': `export async function handler(c) { return c.params; }`,
  'logs.ts': `export const settings = { emit_logs: true }; export async function handler(c) { for (let i = 0; i < 20; i++) console.log('line', i, c.params); return 'ok'; }`,
  'kv.ts': `export async function handler({ kv, params }) { const k = 'c' + (params.k % 50); const v = (await kv.get(k)) ?? 0; await kv.set(k, v + 1, { ttlSec: 600 }); return { k, v: await kv.get(k), keys: (await kv.listKeys('c*')).length }; }`,
  'send.ts': `export async function handler({ api }) { const r = api.useRelayer('sepolia-example'); const tx = await r.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' }); return (await r.getTransaction({ transactionId: tx.id })).status; }`,
  'cpu.ts': `export async function handler() { let x = 0; for (let i = 0; i < 2e6; i++) x = (x + i * 7) % 1000003; return x; }`,
  'loop.ts': `export const settings = { timeout: 0.5 }; export async function handler() { for (;;) {} }`,
  'bomb.ts': `export const settings = { timeout: 5, memory_mb: 32 }; export async function handler() { const o = {}; for (let i = 0; ; i++) o['a' + i] = i; }`,
};

type Kind = 'echo' | 'logs' | 'kv' | 'plugin-send' | 'cpu' | 'send' | 'list' | 'notification' | 'loop' | 'bomb';
/** Relative weights of the request mix. */
const DEFAULT_MIX = 'echo=30,logs=10,kv=15,plugin-send=5,cpu=10,send=8,list=10,notification=3,loop=1';
/** SOAK_MIX narrows the mix (e.g. `kv=1`) to find which kind of traffic a memory trend comes from. */
const MIX = (process.env.SOAK_MIX ?? DEFAULT_MIX).split(',').map((part) => {
  const [kind, weight] = part.split('=');
  return [kind as Kind, Number(weight)] as [Kind, number];
});
/** A memory bomb ends the runtime process (a catastrophic V8 OOM); the HTTP process restarts it. */
const BOMB_EVERY_MS = Number(process.env.SOAK_BOMB_EVERY_S ?? 45) * 1000;

function pick(): Kind {
  const total = MIX.reduce((a, [, w]) => a + w, 0);
  let r = Math.random() * total;
  for (const [k, w] of MIX) if ((r -= w) < 0) return k;
  return 'echo';
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-soak-'));
  const pluginsDir = path.join(root, 'plugins');
  mkdirSync(pluginsDir);
  for (const [name, src] of Object.entries(PLUGINS)) writeFileSync(path.join(pluginsDir, name), src);
  const service = await startService({
    API_KEY,
    DATA_DIR: path.join(root, 'data'),
    PLUGINS_DIR: pluginsDir,
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
  });
  const base = `${service.url}/api/v1`;
  const stop = async () => {
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  };
  process.on('SIGINT', () => void stop().finally(() => process.exit(130)));
  // Health answers before the runtime has loaded the plugins; ready does not.
  for (let i = 0; (await fetch(`${base}/ready`)).status !== 200; i++) {
    if (i > 300) throw new Error('the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }

  const counts: Record<string, number> = {};
  const unexpected: string[] = [];
  let errors = 0;
  let notificationId = 0;
  let bombDue = Date.now() + BOMB_EVERY_MS / 2;
  const auth = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const call = async (kind: Kind): Promise<void> => {
    let method = 'POST';
    let url = '';
    let body: unknown = {};
    switch (kind) {
      case 'echo':
        url = '/plugins/echo/call';
        body = { params: { hello: 'world', n: Math.random() } };
        break;
      case 'logs':
        url = '/plugins/logs/call';
        body = { params: { x: 1 } };
        break;
      case 'kv':
        url = '/plugins/kv/call';
        body = { params: { k: Math.floor(Math.random() * 1000) } };
        break;
      case 'plugin-send':
        url = '/plugins/send/call';
        break;
      case 'cpu':
        url = '/plugins/cpu/call';
        break;
      case 'loop':
        url = '/plugins/loop/call';
        break;
      case 'bomb':
        url = '/plugins/bomb/call';
        break;
      case 'send':
        url = '/relayers/sepolia-example/transactions';
        body = { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' };
        break;
      case 'list':
        method = 'GET';
        url = '/relayers/sepolia-example/transactions/?page=1&per_page=10';
        body = undefined;
        break;
      case 'notification':
        url = '/notifications';
        body = {
          id: `soak-${process.pid}-${++notificationId}`,
          url: 'https://example.com/hook',
          signing_key: 'a-signing-key-of-at-least-32-characters',
        };
        break;
    }
    try {
      const res = await fetch(base + url, {
        method,
        headers: auth,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      const key = `${kind} ${res.status}`;
      counts[key] = (counts[key] ?? 0) + 1;
      const plugin = url.startsWith('/plugins/');
      const expected =
        res.status < 500 ||
        (kind === 'loop' && res.status === 504) ||
        (kind === 'bomb' && res.status === 500 && text.includes('MEMORY_LIMIT_EXCEEDED')) ||
        (plugin && res.status === 503 && res.headers.get('retry-after') === '1');
      if (!expected || (res.status < 300 && kind === 'loop')) unexpected.push(`${key}: ${text.slice(0, 200)}`);
    } catch (err) {
      errors++;
      unexpected.push(`${kind}: ${(err as Error).message}`);
    }
  };

  const started = Date.now();
  const samples: Array<{ t: number; http: number; runtime: number; total: number }> = [];
  const sample = () => {
    const { http, runtime } = service.rssBreakdownMiB();
    samples.push({ t: Date.now() - started, http, runtime, total: http + runtime });
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() - started < DURATION_MS) {
      if (BOMB_EVERY_MS > 0 && Date.now() >= bombDue) {
        bombDue = Date.now() + BOMB_EVERY_MS;
        await call('bomb');
      } else await call(pick());
    }
  });
  await Promise.all(workers);
  clearInterval(sampler);
  sample();
  await stop();

  // A single sample lands anywhere on the sawtooth the bombs cause (the runtime restarts and warms up again),
  // so compare like with like: the peak of the first window after warm-up, and the peak of the last window.
  const peak = (from: number, to: number, key: 'total' | 'http' | 'runtime') =>
    Math.max(...samples.filter((s) => s.t >= from && s.t <= to).map((s) => s[key]));
  const end = samples.at(-1)!.t;
  const settledWindow: [number, number] = [WARMUP_MS, WARMUP_MS + WINDOW_MS];
  const lastWindow: [number, number] = [end - WINDOW_MS, end];
  const growth = (key: 'total' | 'http' | 'runtime') => peak(...lastWindow, key) / peak(...settledWindow, key) - 1;
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const firstSettled = samples.find((s) => s.t >= WARMUP_MS)!;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(
    `soak: ${MINUTES} min, ${CONCURRENCY} in flight, ${total} requests (${Math.round(total / (DURATION_MS / 1000))}/s), ${errors} connection errors`,
  );
  console.log(
    `RSS peak (MiB), first ${WINDOW_MS / 1000} s after the ${WARMUP_MS / 1000} s warm-up → last ${WINDOW_MS / 1000} s:`,
  );
  for (const key of ['total', 'http', 'runtime'] as const) {
    console.log(
      `  ${key.padEnd(7)} ${Math.round(peak(...settledWindow, key))} → ${Math.round(peak(...lastWindow, key))} (${pct(growth(key))})`,
    );
  }
  console.log(
    `RSS single samples (MiB): start ${Math.round(samples[0]!.total)}, first after warm-up ${Math.round(firstSettled.total)}, last ${Math.round(samples.at(-1)!.total)} (${pct(samples.at(-1)!.total / firstSettled.total - 1)}), min ${Math.round(Math.min(...samples.map((s) => s.total)))}, max ${Math.round(Math.max(...samples.map((s) => s.total)))}`,
  );
  console.log(
    `RSS curve, total = HTTP process + runtime (MiB): ${samples.map((s) => `${Math.round(s.t / 1000)}s=${Math.round(s.total)} (${Math.round(s.http)}+${Math.round(s.runtime)})`).join(' ')}`,
  );
  console.log('requests by kind and status:');
  for (const k of Object.keys(counts).sort()) console.log(`  ${k}: ${counts[k]}`);
  let ok = true;
  if (unexpected.length) {
    ok = false;
    console.log(`${unexpected.length} unexpected answers, first ones:`);
    for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
  }
  if (growth('total') > 0.1) {
    ok = false;
    console.log(`RSS grew ${pct(growth('total'))} after warm-up (limit +10%)`);
  }
  console.log(ok ? 'soak: PASS' : 'soak: FAIL');
  process.exit(ok ? 0 : 1);
}

await main();
