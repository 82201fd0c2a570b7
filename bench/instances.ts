// Bench: several instances on one PostgreSQL database and one Redis, against one SQLite instance — sends/s on one hot
// relayer and on 16 relayers, plugin calls/s (KV get + set), outbox events/s. Each figure is the sum over the
// instances' own load drivers. Part of `npm run bench`; alone: `node bench/instances.ts [--quick|--smoke]`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DriverResult, DriverSpec } from './driver.ts';
import { startService, type RunningService } from './service.ts';
import { startDevnet } from '../src/chains/evm/devnet.ts';
import { table, type Row } from './report.ts';

// The bench's anvil stands for a devnet, where rpc_batch is on by default; BENCH_RPC_BATCH=0 measures without it.
const RPC_BATCH = process.env.BENCH_RPC_BATCH !== '0';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const SEND_BODY = JSON.stringify({
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: 1,
  gas_price: 1_000_000_000,
  gas_limit: 21_000,
});
const KV_BODY = JSON.stringify({ params: {} });
const RELAYERS = Array.from({ length: 16 }, (_, i) => (i === 0 ? 'hot' : `r${i}`));
// One key per relayer: relayers sharing an account would take each other's nonces on chain and measure only the
// resulting resyncs. Derived from public strings (development keys) and funded on the bench's own anvil.
const KEYS = new Map([...RELAYERS, 'hooked'].map((id) => [id, keccak256(toHex(`relaybox-bench-relayer-${id}`))]));
const PG_SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export interface InstancePlan {
  /** Timed scenarios: duration (or a fixed count in smoke runs) and warm-up per driver. */
  durationMs?: number;
  count?: number;
  warmupMs: number;
  /** Requests in flight in total, split over the instances. */
  inflight: number;
  /** Outbox events delivered in the outbox scenario. */
  events: number;
}

interface Setup {
  label: string;
  store: 'sqlite' | 'postgres';
  instances: number;
}

const SETUPS: Setup[] = [
  { label: 'SQLite, 1 instance', store: 'sqlite', instances: 1 },
  { label: 'PostgreSQL, 1 instance', store: 'postgres', instances: 1 },
  { label: 'PostgreSQL, 2 instances', store: 'postgres', instances: 2 },
];

async function driver(spec: DriverSpec): Promise<DriverResult> {
  const child = spawn(process.execPath, [path.join(HERE, 'driver.ts'), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`driver failed for ${spec.label} (exit ${code})`);
  return JSON.parse(out) as DriverResult;
}

/** One driver per instance at once; calls/s summed, latencies the worst instance's. */
async function driveAll(
  svcs: RunningService[],
  plan: InstancePlan,
  spec: Omit<DriverSpec, 'url' | 'inflight' | 'label' | 'warmupMs'>,
  label: string,
): Promise<Omit<Row, 'scenario'>> {
  const each = Math.max(1, Math.round(plan.inflight / svcs.length));
  const timing =
    plan.count !== undefined ? { count: Math.ceil(plan.count / svcs.length) } : { durationMs: plan.durationMs };
  const results = await Promise.all(
    svcs.map((s, i) =>
      driver({ ...spec, ...timing, url: s.url, inflight: each, warmupMs: plan.warmupMs, label: `${label}#${i}` }),
    ),
  );
  return {
    inflight: each * svcs.length,
    requests: results.reduce((n, r) => n + r.requests, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    rps: results.reduce((n, r) => n + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    max: Math.max(...results.map((r) => r.max)),
  };
}

function config(root: string, webhookUrl: string, rpcUrl: string): string {
  const file = path.join(root, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      // One anvil for every instance (a block a second): sends are relayed for real, as users' are.
      networks: [
        {
          type: 'evm',
          network: 'local',
          chain_id: 31337,
          required_confirmations: 1,
          symbol: 'ETH',
          average_blocktime_ms: 1000,
          is_testnet: true,
          features: ['eip1559'],
          rpc_urls: [rpcUrl],
          explorer_urls: [],
          ...(RPC_BATCH ? { rpc_batch: true } : {}),
        },
      ],
      signers: [...KEYS].map(([id, key]) => ({ id: `s-${id}`, type: 'local', development: true, private_key: key })),
      relayers: [...KEYS.keys()].map((id) => ({
        id,
        name: id,
        network: 'local',
        network_type: 'evm',
        signer_id: `s-${id}`,
        ...(id === 'hooked' ? { notification_id: 'hook' } : {}),
      })),
      notifications: [{ id: 'hook', type: 'webhook', url: webhookUrl }],
      plugins: [],
    }),
  );
  return file;
}

async function fundRelayers(rpcUrl: string): Promise<void> {
  for (const key of KEYS.values()) {
    const params = [privateKeyToAccount(key).address, toHex(10n ** 24n)];
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params }),
    });
    const body = (await res.json()) as { error?: { message: string } };
    if (body.error) throw new Error(`anvil_setBalance: ${body.error.message}`);
  }
}

async function admin(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_SERVER });
  await c.connect();
  await c.query(text).finally(() => c.end());
}

async function reachable(): Promise<boolean> {
  return admin('SELECT 1').then(
    () => true,
    () => false,
  );
}

/** Pending outbox events written straight into the store (each of its own transaction), then the time to deliver them all. */
async function outbox(
  setup: Setup,
  svcs: RunningService[],
  n: number,
  where: { sqlite?: string; pgUrl?: string },
): Promise<Omit<Row, 'scenario'>> {
  const insert = `INSERT INTO webhook_events (id, notification_id, event, transaction_id, body, status, attempts, next_attempt_at, created_at, updated_at)`;
  let delivered: () => Promise<number>;
  let close = async () => undefined as unknown;
  const now = new Date().toISOString();
  const t0 = performance.now();
  if (setup.store === 'sqlite') {
    const db = new Database(where.sqlite!);
    db.pragma('busy_timeout = 5000');
    db.prepare(
      `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?) ${insert} SELECT 'bench-' || i, 'hook', 'transaction_update', 'btx-' || i, '{}', 'pending', 0, 0, ?, ? FROM g`,
    ).run(n, now, now);
    const count = db.prepare("SELECT COUNT(*) FROM webhook_events WHERE status = 'delivered'").pluck();
    delivered = async () => count.get() as number;
    close = async () => db.close();
  } else {
    const c = new pg.Client({ connectionString: where.pgUrl });
    await c.connect();
    await c.query(
      `${insert} SELECT 'bench-' || g, 'hook', 'transaction_update', 'btx-' || g, '{}', 'pending', 0, 0, $2, $2 FROM generate_series(1, $1::int) g`,
      [n, now],
    );
    await c.query('NOTIFY relaybox_outbox');
    delivered = async () =>
      Number((await c.query("SELECT COUNT(*) AS n FROM webhook_events WHERE status = 'delivered'")).rows[0].n);
    close = () => c.end();
  }
  const deadline = Date.now() + 300_000;
  while ((await delivered()) < n) {
    if (Date.now() > deadline) throw new Error(`outbox: not all ${n} events delivered within 5 min`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  await close();
  return { inflight: 16 * svcs.length, requests: n, errors: 0, rps: n / seconds, p50: 0, p99: 0, max: seconds * 1000 };
}

async function waitForKv(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${url}/api/v1/plugins/kv/call`, { method: 'POST', headers: AUTH, body: KV_BODY }).catch(
      () => undefined,
    );
    if (res?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the kv plugin never answered');
}

export async function instanceScenarios(plan: InstancePlan, log: (msg: string) => void): Promise<Row[]> {
  if (!(await reachable())) {
    log(`instances: skipped (no PostgreSQL at ${PG_SERVER})`);
    return [];
  }
  const root = mkdtempSync(path.join(os.tmpdir(), 'relaybox-bench-instances-'));
  const pluginsDir = path.join(root, 'plugins');
  mkdirSync(pluginsDir);
  for (const f of readdirSync(path.join(HERE, 'plugins')))
    copyFileSync(path.join(HERE, 'plugins', f), path.join(pluginsDir, f));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const devnet = await startDevnet({ chainId: 31337, blockTimeMs: 1000 });
  await fundRelayers(devnet.url);
  const configPath = config(root, `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`, devnet.url);
  const cores = `${os.cpus().length} cores`;
  const rows: Row[] = [];
  try {
    for (const [k, setup] of SETUPS.entries()) {
      // BENCH_INSTANCE_SETUPS=<text>: only the setups whose label contains it (e.g. "PostgreSQL, 1").
      if (process.env.BENCH_INSTANCE_SETUPS && !setup.label.includes(process.env.BENCH_INSTANCE_SETUPS)) continue;
      const dbName = `relaybox_bench_${process.pid}_${k}`;
      const env: Record<string, string> = {
        API_KEY,
        CONFIG_PATH: configPath,
        PLUGINS_DIR: pluginsDir,
        DATA_DIR: path.join(root, `data-${k}`),
        RATE_LIMIT_RPS: '100000000',
        RATE_LIMIT_BURST: '100000000',
      };
      let pgUrl: string | undefined;
      if (setup.store === 'postgres') {
        await admin(`CREATE DATABASE ${dbName}`);
        const u = new URL(PG_SERVER);
        u.pathname = `/${dbName}`;
        pgUrl = u.toString();
        Object.assign(env, { DATABASE_URL: pgUrl, REDIS_URL });
      }
      const svcs: RunningService[] = [];
      try {
        log(`instances: starting ${setup.label}`);
        // One at a time: the first migrates, the next finds the schema in place.
        for (let i = 0; i < setup.instances; i++) svcs.push(await startService(env, { timeoutMs: 120_000 }));
        await Promise.all(svcs.map((s) => waitForKv(s.url)));
        const note = cores;
        log(`instances: ${setup.label}: sends, 1 hot relayer`);
        rows.push({
          scenario: `sends, 1 hot relayer — ${setup.label}`,
          note,
          ...(await driveAll(
            svcs,
            plan,
            { method: 'POST', path: '/api/v1/relayers/hot/transactions', headers: AUTH, body: SEND_BODY },
            'hot',
          )),
        });
        log(`instances: ${setup.label}: sends, 16 relayers`);
        const paths = RELAYERS.map((r) => `/api/v1/relayers/${r}/transactions`);
        rows.push({
          scenario: `sends, 16 relayers — ${setup.label}`,
          note,
          ...(await driveAll(
            svcs,
            plan,
            { method: 'POST', path: paths[0]!, paths, headers: AUTH, body: SEND_BODY },
            'spread',
          )),
        });
        log(`instances: ${setup.label}: plugin calls (KV get + set)`);
        rows.push({
          scenario: `plugin calls, KV get + set — ${setup.label}`,
          note,
          ...(await driveAll(
            svcs,
            plan,
            { method: 'POST', path: '/api/v1/plugins/kv/call', headers: AUTH, body: KV_BODY },
            'kv',
          )),
        });
        log(`instances: ${setup.label}: outbox, ${plan.events} events`);
        rows.push({
          scenario: `outbox events delivered — ${setup.label}`,
          note,
          ...(await outbox(setup, svcs, plan.events, { sqlite: path.join(env.DATA_DIR!, 'relaybox.sqlite'), pgUrl })),
        });
      } finally {
        await Promise.all(svcs.map((s) => s.stop()));
        if (pgUrl) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      }
    }
  } finally {
    receiver.close();
    await devnet.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const plan: InstancePlan = args.includes('--smoke')
    ? { count: 40, warmupMs: 0, inflight: 8, events: 100 }
    : args.includes('--quick')
      ? { durationMs: 2000, warmupMs: 300, inflight: 32, events: 300 }
      : { durationMs: 8000, warmupMs: 1500, inflight: 32, events: 5000 };
  const rows = await instanceScenarios(plan, (m) => process.stderr.write(`${m}\n`));
  process.stdout.write(`${table(rows)}\n`);
}
