// Soak test (npm run test:soak): mixed traffic against a real `node src/main.ts` for SOAK_MINUTES (default 10),
// abusive plugins included; the RSS of the service and its runtime (the whole process tree, from /proc) is
// sampled every 10 s and must end within 10% of where it settled after warm-up, with no unexpected 5xx.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const DURATION_MS = MINUTES * 60_000;
const WARMUP_MS = Math.max(30_000, DURATION_MS * 0.2);
const SAMPLE_MS = 10_000;
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const API_KEY = 'soak-api-key-0123456789abcdef0123456789';
const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..');

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
const MIX: Array<[Kind, number]> = [['echo', 30], ['logs', 10], ['kv', 15], ['plugin-send', 5], ['cpu', 10], ['send', 8], ['list', 10], ['notification', 3], ['loop', 1]];
const BOMB_EVERY_MS = 45_000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function treeRssKiB(pid: number): number {
  let total = 0;
  const visit = (p: number) => {
    try {
      total += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${p}/task`)) {
        for (const c of readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(c));
      }
    } catch {
      // the process ended between two reads (a runtime restart)
    }
  };
  visit(pid);
  return total;
}

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
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const service = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, API_KEY, PORT: String(port), DATA_DIR: path.join(root, 'data'), PLUGINS_DIR: pluginsDir, LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () => {
    service.kill('SIGTERM');
    rmSync(root, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
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
      case 'echo': url = '/plugins/echo/call'; body = { params: { hello: 'world', n: Math.random() } }; break;
      case 'logs': url = '/plugins/logs/call'; body = { params: { x: 1 } }; break;
      case 'kv': url = '/plugins/kv/call'; body = { params: { k: Math.floor(Math.random() * 1000) } }; break;
      case 'plugin-send': url = '/plugins/send/call'; break;
      case 'cpu': url = '/plugins/cpu/call'; break;
      case 'loop': url = '/plugins/loop/call'; break;
      case 'bomb': url = '/plugins/bomb/call'; break;
      case 'send': url = '/relayers/sepolia-example/transactions'; body = { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' }; break;
      case 'list': method = 'GET'; url = '/relayers/sepolia-example/transactions/?page=1&per_page=10'; body = undefined; break;
      case 'notification': url = '/notifications'; body = { id: `soak-${process.pid}-${++notificationId}`, url: 'https://example.com/hook', signing_key: 'a-signing-key-of-at-least-32-characters' }; break;
    }
    try {
      const res = await fetch(base + url, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
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
  const samples: Array<{ t: number; kib: number }> = [];
  const sample = () => samples.push({ t: Math.round((Date.now() - started) / 1000), kib: treeRssKiB(service.pid!) });
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() - started < DURATION_MS) {
      if (Date.now() >= bombDue) {
        bombDue = Date.now() + BOMB_EVERY_MS;
        await call('bomb');
      } else await call(pick());
    }
  });
  await Promise.all(workers);
  clearInterval(sampler);
  // Let the last restart and queued work settle, then take the final sample.
  await new Promise((r) => setTimeout(r, 2000));
  sample();
  stop();

  const mib = (k: number) => Math.round(k / 1024);
  const afterWarmup = samples.filter((s) => s.t * 1000 >= WARMUP_MS);
  const settled = afterWarmup[0] ?? samples[0]!;
  const last = samples.at(-1)!;
  const all = samples.map((s) => s.kib);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const growth = (last.kib - settled.kib) / settled.kib;
  console.log(`soak: ${MINUTES} min, ${CONCURRENCY} in flight, ${total} requests (${Math.round(total / (DURATION_MS / 1000))}/s), ${errors} connection errors`);
  console.log(`RSS (service + runtime tree, MiB): first ${mib(samples[0]!.kib)}, settled ${mib(settled.kib)} at ${settled.t} s, min ${mib(Math.min(...all))}, max ${mib(Math.max(...all))}, last ${mib(last.kib)} (${(growth * 100).toFixed(1)}% vs settled)`);
  console.log(`RSS curve: ${samples.map((s) => `${s.t}s=${mib(s.kib)}`).join(' ')}`);
  console.log('requests by kind and status:');
  for (const k of Object.keys(counts).sort()) console.log(`  ${k}: ${counts[k]}`);
  let ok = true;
  if (unexpected.length) {
    ok = false;
    console.log(`${unexpected.length} unexpected answers, first ones:`);
    for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
  }
  if (growth > 0.1) {
    ok = false;
    console.log(`RSS grew ${(growth * 100).toFixed(1)}% after warm-up (limit 10%)`);
  }
  console.log(ok ? 'soak: PASS' : 'soak: FAIL');
  process.exit(ok ? 0 : 1);
}

await main();
