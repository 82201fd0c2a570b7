// Bench: GET list page 1 and page 10,000 over HTTP for a relayer holding 1,000,000 transactions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp } from '../src/app.ts';
import { seedTransactions } from './seed-transactions.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';

const root = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-'));
const configPath = path.join(root, 'config.json');
writeFileSync(
  configPath,
  JSON.stringify({
    // A devnet the app starts itself: the template send below is priced from it (speed 'fast').
    networks: [
      {
        type: 'evm',
        network: 'sepolia',
        chain_id: 11155111,
        required_confirmations: 1,
        symbol: 'ETH',
        average_blocktime_ms: 1000,
        features: ['eip1559'],
        devnet: {},
      },
    ],
    // Hardhat account #0: a publicly known development key.
    signers: [
      {
        id: 'dev',
        type: 'local',
        development: true,
        private_key: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      },
    ],
    relayers: [{ id: 'bench', name: 'bench', network: 'sepolia', signer_id: 'dev' }],
  }),
);
const config = loadConfig({
  API_KEY,
  CONFIG_PATH: configPath,
  DATA_DIR: path.join(root, 'data'),
  PLUGINS_DIR: path.join(root, 'plugins'),
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
});
const app = await createApp(config, createLogger('warn'));
const server = await app.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

try {
  // One real signed record as the template, so rows have production size and shape.
  const sent = await fetch(`${base}/api/v1/relayers/bench/transactions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ value: 1, to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', speed: 'fast' }),
  });
  const template = ((await sent.json()) as { data: Record<string, unknown> }).data;

  const seedStart = performance.now();
  seedTransactions(app.db, 'bench', template, ROWS - 1);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  console.log(`seeded ${ROWS.toLocaleString()} transactions in ${seedSeconds.toFixed(1)} s`);

  const measure = async (label: string, query: string) => {
    const url = `${base}/api/v1/relayers/bench/transactions/?${query}`;
    for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer();
    const times: number[] = [];
    let body: { data: unknown[]; pagination: { total_items: number } } | undefined;
    for (let i = 0; i < REQUESTS; i++) {
      const start = performance.now();
      const res = await fetch(url, { headers });
      body = (await res.json()) as typeof body;
      times.push(performance.now() - start);
      if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);
    console.log(
      `${label.padEnd(34)} p50 ${pct(50)} ms  p99 ${pct(99)} ms  (${body!.data.length} items, total_items ${body!.pagination.total_items})`,
    );
  };

  await measure('page 1 (per_page 10)', 'page=1&per_page=10');
  await measure('page 10,000 (per_page 10)', 'page=10000&per_page=10');
  await measure('page 10,000 (per_page 100)', 'page=10000&per_page=100');
  await measure('page 10,000, status=pending', 'page=10000&per_page=10&status=pending');
} finally {
  await app.close();
  rmSync(root, { recursive: true, force: true });
}
