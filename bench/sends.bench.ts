// Bench: POST /transactions straight over HTTP (no plugin), the store's share of a send: nonce, record, counters, outbox row.
// Run: node bench/sends.bench.ts  (BENCH_MS=<ms per scenario>, default 4000)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp } from '../src/app.ts';
import type { DriverResult, DriverSpec } from './driver.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DURATION_MS = Number(process.env.BENCH_MS ?? 4000);
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const BODY = JSON.stringify({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, gas_price: 1000000000 });
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'; // Hardhat account #0: public.

// The receiver answers every webhook at once, so the outbox drains and its rows stay few.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const root = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-'));
const configPath = path.join(root, 'config.json');
const network = {
  id: 'sepolia',
  type: 'evm',
  chain_id: 11155111,
  fees: { gas_price: { safeLow: '1', average: '2', fast: '3', fastest: '4' } },
};
writeFileSync(
  configPath,
  JSON.stringify({
    networks: [network],
    signers: [{ id: 'dev', type: 'local', development: true, private_key: DEV_KEY }],
    relayers: [
      { id: 'quiet', name: 'no webhook', network: 'sepolia', signer_id: 'dev' },
      { id: 'hooked', name: 'with webhook', network: 'sepolia', signer_id: 'dev', notification_id: 'hook' },
    ],
    notifications: [{ id: 'hook', type: 'webhook', url: hookUrl }],
  }),
);
const config = loadConfig({
  API_KEY,
  CONFIG_PATH: configPath,
  DATA_DIR: path.join(root, 'data'),
  PLUGINS_DIR: path.join(root, 'plugins'),
  RATE_LIMIT_RPS: '100000000',
  RATE_LIMIT_BURST: '100000000',
});
const app = await createApp(config, createLogger('warn'));
const server = await app.listen(0, '127.0.0.1');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function drive(relayer: string, inflight: number): Promise<DriverResult> {
  const spec: DriverSpec = {
    url,
    method: 'POST',
    path: `/api/v1/relayers/${relayer}/transactions`,
    headers: HEADERS,
    body: BODY,
    inflight,
    durationMs: DURATION_MS,
    warmupMs: 500,
    label: `${relayer}@${inflight}`,
  };
  const child = spawn(process.execPath, [path.join(HERE, 'driver.ts'), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`driver failed (exit ${code})`);
  return JSON.parse(out) as DriverResult;
}

try {
  process.stdout.write(
    '| relayer | in flight | sends/s | p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|\n',
  );
  for (const relayer of ['quiet', 'hooked']) {
    for (const inflight of [1, 16]) {
      const r = await drive(relayer, inflight);
      process.stdout.write(
        `| ${relayer} | ${inflight} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |\n`,
      );
    }
  }
} finally {
  await app.close();
  receiver.close();
  rmSync(root, { recursive: true, force: true });
}
