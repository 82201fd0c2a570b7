// Several real `node src/main.ts` processes on one PostgreSQL database and one Redis, as an operator runs them.
// Each test gets a database of its own (dropped at the end) and an API key of its own (its own rate-limit bucket).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { request, type RequestOptions, type TestResponse } from '../helper.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { REDIS_URL, redisReachable } from '../support/redis.ts';

/** Why the cluster tests cannot run here (no PostgreSQL or Redis), or undefined. */
export async function clusterSkip(): Promise<string | undefined> {
  if (!(await postgresReachable()))
    return 'no PostgreSQL server answers (set DATABASE_URL or start one on 127.0.0.1:5432)';
  if (!(await redisReachable())) return 'no Redis answers (set REDIS_URL or start one on 127.0.0.1:6379)';
  return undefined;
}
/** Hardhat account #0: a publicly known development key. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** Explicit prices and gas: the chain is asked only for the balance. */
export const SEND = { to: TO, value: 1, gas_price: 2_000_000_000, gas_limit: 21_000 };
/** A network nobody answers on: for tests that never send. */
const UNREACHABLE = {
  type: 'evm',
  network: 'local',
  chain_id: 31337,
  required_confirmations: 1,
  symbol: 'ETH',
  average_blocktime_ms: 1000,
  is_testnet: true,
  rpc_urls: ['http://127.0.0.1:9'],
  explorer_urls: [],
};

export interface Instance {
  name: string;
  child: ChildProcess;
  /** Resolves with the base URL once listening; rejects if the process exits first. */
  listening: Promise<string>;
  url: string;
  output(): string;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export interface Cluster {
  databaseUrl: string;
  databaseName: string;
  apiKey: string;
  env: Record<string, string>;
  configPath: string;
  start(name: string, env?: Record<string, string>): Instance;
}

/** The config every instance reads: one EVM relayer on `network` (named 'local') whose transactions report to `webhookUrl`. */
function clusterConfig(webhookUrl: string, network: object = UNREACHABLE) {
  return {
    networks: [{ ...network, network: 'local' }],
    signers: [{ id: 's', type: 'local', development: true, private_key: DEV_KEY }],
    relayers: [
      {
        id: 'hot',
        name: 'hot relayer',
        network: 'local',
        network_type: 'evm',
        signer_id: 's',
        notification_id: 'hook',
      },
    ],
    notifications: [{ id: 'hook', type: 'webhook', url: webhookUrl }],
    plugins: [],
  };
}

/**
 * `network`: the EVM network the relayer sends to (a test anvil's); without it nothing answers (tests that do not send).
 * `config`: a whole config file instead (e.g. Solana and Stellar relayers on simulated networks).
 */
export async function createCluster(
  t: TestContext,
  options: { webhookUrl?: string; env?: Record<string, string>; network?: object; config?: object } = {},
): Promise<Cluster> {
  const db = await createTestDatabase('relaybox_cluster');
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-cluster-'));
  mkdirSync(path.join(root, 'plugins'));
  const configPath = path.join(root, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify(
      options.config ?? clusterConfig(options.webhookUrl ?? 'http://127.0.0.1:9/webhook', options.network),
    ),
  );
  const apiKey = `cluster-${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    API_KEY: apiKey,
    DATABASE_URL: db.url,
    REDIS_URL,
    CONFIG_PATH: configPath,
    PLUGINS_DIR: path.join(root, 'plugins'),
    DATA_DIR: path.join(root, 'data'),
    PORT: '0',
    LOG_LEVEL: 'info',
    // JSON lines: the listening line is parsed, and tests match fields in them.
    LOG_FORMAT: 'json',
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    PLUGIN_THREADS: '1',
    ...options.env,
  };
  const children: ChildProcess[] = [];
  t.after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : undefined)),
    );
    rmSync(root, { recursive: true, force: true });
  });
  return {
    databaseUrl: db.url,
    databaseName: db.name,
    apiKey,
    env,
    configPath,
    start(name, extra = {}) {
      const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'src/main.ts')], {
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const instance: Instance = {
        name,
        child,
        url: '',
        exited,
        output: () => out,
        listening: new Promise<string>((resolve, reject) => {
          const look = () => {
            const line = out.split('\n').find((l) => l.includes('"relaybox listening"'));
            if (!line) return;
            const { address } = JSON.parse(line) as { address: { port: number } };
            instance.url = `http://127.0.0.1:${address.port}`;
            resolve(instance.url);
          };
          child.stdout!.on('data', look);
          void exited.then((code) => reject(new Error(`${name} exited with ${code} before listening:\n${out}`)));
        }),
        request: (method, urlPath, opts = {}) =>
          request(instance.url, method, urlPath, { auth: `Bearer ${apiKey}`, ...opts }),
      };
      instance.listening.catch(() => undefined);
      return instance;
    },
  };
}

export interface Delivery {
  eventId: string;
  transactionId: string;
  status: string;
  /** Order of arrival, and of the answer, on one counter. */
  arrived: number;
  answered?: number;
}

/** A webhook receiver that answers 200 after `delayMs`, recording arrivals and answers in order. */
export async function webhookReceiver(
  t: TestContext,
  delayMs: number,
): Promise<{ url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  let clock = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { id: string; payload: { id: string; status: string } };
      const d: Delivery = {
        eventId: parsed.id,
        transactionId: parsed.payload.id,
        status: parsed.payload.status,
        arrived: ++clock,
      };
      deliveries.push(d);
      setTimeout(() => {
        d.answered = ++clock;
        res.end('ok');
      }, delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/webhook`, deliveries };
}

/** Polls `check` until truthy (`timeoutMs` cap, so a broken test fails instead of hanging). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 60_000,
): Promise<Exclude<T, undefined | null | false | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
