// Echo plugin over HTTP: calls/s at 1 and 64 in flight, warm versus fresh contexts.
//   node bench/plugin-echo.bench.ts [--duration=5] [--modes=warm,fresh] [--connections=1,64]
// Starts the service as a user does (`node src/main.ts`, its own process, which forks the runtime) per mode,
// with LOG_LEVEL=warn so the per-request log line is not what is measured. The load comes from bench/driver.ts
// (undici) in its own process, so the driver's CPU never shares the service's event loop. (autocannon is no
// longer a dependency of the project; the driver measures the same thing.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DriverResult, DriverSpec } from './driver.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const duration = Number(arg('duration', '5'));
const modes = arg('modes', 'warm,fresh').split(',');
const connections = arg('connections', '1,64').split(',').map(Number);

async function startService(mode: string, pluginsDir: string, dataDir: string, port: number) {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, API_KEY, PORT: String(port), PLUGINS_DIR: pluginsDir, DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '10000000', RATE_LIMIT_BURST: '10000000', PLUGIN_CONTEXT_MODE: mode },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${url}/api/v1/plugins/echo/call`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: '{"params":{}}' });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: async () => { child.kill('SIGTERM'); await once(child, 'exit'); } };
}

async function run(url: string, inflight: number, seconds: number): Promise<DriverResult> {
  const spec: DriverSpec = {
    url,
    method: 'POST',
    path: '/api/v1/plugins/echo/call',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ params: { hello: 'world', n: 1 } }),
    inflight,
    durationMs: seconds * 1000,
    warmupMs: 500,
    label: `echo@${inflight}`,
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'driver.ts'), JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`driver failed (exit ${code})`);
  return JSON.parse(out) as DriverResult;
}

const rows: string[] = [];
for (const mode of modes) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'relaybox-bench-'));
  const pluginsDir = path.join(root, 'plugins');
  await import('node:fs').then((fs) => fs.mkdirSync(pluginsDir));
  writeFileSync(path.join(pluginsDir, 'echo.ts'), 'export async function handler(context) { return context.params; }\n');
  const service = await startService(mode, pluginsDir, path.join(root, 'data'), 18000 + Math.floor(Math.random() * 2000));
  try {
    await run(service.url, 16, 1); // warm-up: JIT, isolates, contexts
    for (const c of connections) {
      const r = await run(service.url, c, duration);
      const fmt = (n: number) => n.toFixed(2);
      rows.push(`| ${mode} | ${c} | ${Math.round(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} |`);
      process.stderr.write(`${mode} @${c}: ${Math.round(r.rps)} calls/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, errors ${r.errors}\n`);
    }
  } finally {
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
console.log(`\nEcho plugin over HTTP, ${os.availableParallelism()} cores, ${duration} s per row (node bench/plugin-echo.bench.ts)\n`);
console.log('| context mode | in flight | calls/s | p50 ms | p99 ms | errors |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
