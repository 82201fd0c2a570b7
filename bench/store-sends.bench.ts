// Bench: sendTransaction through the relayer operations and the store, in process (no HTTP, no plugin):
// the store's cost per send (nonce under the row lock, record, counters, outbox row), as sends/s and CPU µs per send.
// Run: node bench/store-sends.bench.ts  (BENCH_SENDS=<n per round>, default 5000; DATABASE_URL=postgres://… for
// PostgreSQL: a database of its own is created on that server and dropped at the end)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, signerSettings } from '../src/config/config.ts';
import { openStore } from '../src/store/open.ts';
import pg from 'pg';
import { createOutbox } from '../src/domain/webhooks/outbox.ts';
import { createRelayerOperations } from '../src/api/relayers/operations.ts';
import { createRelaying } from '../src/domain/relaying.ts';
import { createManagementServices } from '../src/domain/management.ts';
import { createSignerResolver } from '../src/signers/registry.ts';
import { createSecretBox } from '../src/domain/secret-box.ts';
import { startChains } from '../src/chains/index.ts';

const SENDS = Number(process.env.BENCH_SENDS ?? 5000);
const ROUNDS = 3;
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'; // Hardhat account #0: public.
const BODY = { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, gas_price: 1000000000 };

const root = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-'));
const configPath = path.join(root, 'config.json');
writeFileSync(
  configPath,
  JSON.stringify({
    // The embedded devnet: explicit prices need no RPC, but the chain port exists as in the service.
    networks: [
      {
        type: 'evm',
        network: 'devnet',
        chain_id: 31337,
        required_confirmations: 1,
        symbol: 'ETH',
        average_blocktime_ms: 1000,
        devnet: {},
      },
    ],
    signers: [{ id: 'dev', type: 'local', development: true, private_key: DEV_KEY }],
    relayers: [
      { id: 'quiet', name: 'no webhook', network: 'devnet', signer_id: 'dev' },
      { id: 'hooked', name: 'with webhook', network: 'devnet', signer_id: 'dev', notification_id: 'hook' },
    ],
    notifications: [{ id: 'hook', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
  }),
);
const server = process.env.DATABASE_URL;
const dbName = `relaybox_bench_${process.pid}`;
const admin = async (text: string) => {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  await c.query(text).finally(() => c.end());
};
let databaseUrl: string | undefined;
if (server) {
  await admin(`CREATE DATABASE ${dbName}`);
  const u = new URL(server);
  u.pathname = `/${dbName}`;
  databaseUrl = u.toString();
}
const config = loadConfig({
  API_KEY: 'b'.repeat(32),
  CONFIG_PATH: configPath,
  DATA_DIR: path.join(root, 'data'),
  PLUGINS_DIR: path.join(root, 'plugins'),
});
const logger = pino({ level: 'warn' });
const opened = await openStore({
  databaseUrl,
  dataDir: config.dataDir,
  instanceId: 'bench',
  storageKeyVerifier: 'none',
  outboxLeaseMs: 15_000,
  logger,
});
const { store } = opened;
await opened.prepare();
// No dispatcher: the outbox rows are written (that is the cost measured) and left pending.
const chains = await startChains(config.file, { logger });
const ops = await opened.startup(async () => {
  await store.repos.notifications.insertIfAbsent({
    id: 'hook',
    type: 'webhook',
    url: 'http://127.0.0.1:9/hook',
    signing_key: null,
    seed_hash: null,
    created_at: '',
    updated_at: '',
  });
  const management = await createManagementServices({
    store,
    config,
    networks: config.file.networks,
    chains,
    secrets: createSecretBox(undefined),
    logger,
    resolveSigner: createSignerResolver({ env: process.env, settings: signerSettings(process.env) }),
  });
  return createRelayerOperations(
    await createRelaying({ store, config, logger, events: createOutbox(), chains, ...management }),
    { store },
  );
});

async function round(relayer: string, inflight: number): Promise<{ rps: number; cpuUs: number }> {
  let issued = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (issued++ < SENDS) await ops.sendTransaction(relayer, { ...BODY });
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { rps: SENDS / seconds, cpuUs: (cpu.user + cpu.system) / SENDS };
}

console.log(`node ${process.version}, ${opened.kind}, ${SENDS} sends per round, best of ${ROUNDS}`);
console.log('| relayer | in flight | sends/s | CPU µs/send |\n|---|---:|---:|---:|');
await round('quiet', 16);
for (const relayer of ['quiet', 'hooked']) {
  for (const inflight of [1, 16]) {
    const results = [];
    for (let i = 0; i < ROUNDS; i++) results.push(await round(relayer, inflight));
    const best = results.reduce((a, b) => (b.rps > a.rps ? b : a));
    const cpu = Math.min(...results.map((r) => r.cpuUs));
    console.log(`| ${relayer} | ${inflight} | ${Math.round(best.rps)} | ${cpu.toFixed(0)} |`);
  }
}
await store.close();
await chains.close();
if (server) await admin(`DROP DATABASE ${dbName} WITH (FORCE)`);
rmSync(root, { recursive: true, force: true });
