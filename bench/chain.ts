// Chain scenario of `npm run bench`: relaying to a real anvil, set against anvil's own raw intake measured by the
// same driver in the same run, and the load of tracking many pending transactions.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { startDevnet } from '../src/chains/evm/devnet.ts';
import type { DriverResult, DriverSpec } from './driver.ts';
import { startService, treeCpuSeconds } from './service.ts';
import type { ChainCpu, Row } from './report.ts';

// The bench's anvil stands for a devnet, where rpc_batch is on by default; BENCH_RPC_BATCH=0 measures without it.
const RPC_BATCH = process.env.BENCH_RPC_BATCH !== '0';
// anvil's default accounts #0 and #1: publicly known development keys.
const RELAYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const RAW_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const CHAIN_ID = 31337;
// BENCH_CHAIN_INFLIGHT: another concurrency, to tell a throughput bound from a latency bound (same for both drivers).
const INFLIGHT = Number(process.env.BENCH_CHAIN_INFLIGHT ?? 16);

export interface ChainSummary {
  sends: number;
  /** Sends made and confirmed before the measured ones, not counted. */
  warmupSends: number;
  rawIntakePerSecond: number;
  answeredPerSecond: number;
  submittedPerSecond: number;
  confirmedPerSecond: number;
  submittedVsRaw: number;
  /** Service CPU (HTTP and runtime processes) from the first send to the last confirmed, per send. */
  cpuMsPerSend: number;
  /**
   * Bytes the service wrote over the same span, per send: the store's pages (SQLite's WAL frames and checkpoints)
   * and its sockets (answers, RPC requests). What the CPU per send spends on writing scales with it.
   */
  writtenKiBPerSend: number;
  /**
   * CPU (ms) per transaction of each party on the shared cores: for a raw transaction anvil and the driver, for a
   * Relaybox send the service, anvil and the driver (same spans as cpuMsPerSend). What the cores can carry at these
   * costs is report.ts's floorLimits.
   */
  cpuMs: ChainCpu;
  timeToSubmittedMs: { p50: number; p99: number };
  monitoring: {
    pending: number;
    serviceCpuPercent: number;
    secondsMeasured: number;
    minedToConfirmedSeconds: number;
    confirmationsPerSecond: number;
  };
}

type Drive = (spec: Omit<DriverSpec, 'durationMs' | 'warmupMs'> & { count: number }) => Promise<DriverResult>;

export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function rawBodies(url: string, n: number): Promise<string[]> {
  const account = privateKeyToAccount(RAW_KEY);
  const start = Number(await rpc<Hex>(url, 'eth_getTransactionCount', [account.address, 'pending']));
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const raw = await account.signTransaction({
      chainId: CHAIN_ID,
      nonce: start + i,
      to: TO,
      value: 1n,
      gas: 21_000n,
      type: 'eip1559',
      maxFeePerGas: 20_000_000_000n,
      maxPriorityFeePerGas: 2_000_000_000n,
    });
    bodies.push(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }));
  }
  return bodies;
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

export async function chainScenario(options: {
  root: string;
  apiKey: string;
  sends: number;
  warmupSends?: number;
  pending: number;
  monitorMs: number;
  drive: Drive;
  log: (m: string) => void;
}): Promise<{ rows: Row[]; summary: ChainSummary }> {
  const { root, apiKey, sends, pending, drive, log } = options;
  const warmupSends = options.warmupSends ?? 0;
  const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const devnet = await startDevnet({ chainId: CHAIN_ID, blockTimeMs: 1000 });
  const dir = path.join(root, 'chain');
  mkdirSync(dir, { recursive: true });
  const configPath = path.join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [
        {
          type: 'evm',
          network: 'bench',
          chain_id: CHAIN_ID,
          required_confirmations: 1,
          symbol: 'ETH',
          average_blocktime_ms: 1000,
          features: ['eip1559'],
          rpc_urls: [devnet.url],
          ...(RPC_BATCH ? { rpc_batch: true } : {}),
        },
      ],
      signers: [{ id: 'key', type: 'local', development: true, private_key: RELAYER_KEY }],
      relayers: [{ id: 'bench', name: 'chain bench', network: 'bench', signer_id: 'key' }],
      notifications: [],
      plugins: [],
    }),
  );
  const svc = await startService({
    API_KEY: apiKey,
    DATA_DIR: path.join(dir, 'data'),
    PLUGINS_DIR: path.join(dir, 'plugins'),
    CONFIG_PATH: configPath,
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
  });
  const count = async (status: string) =>
    (
      (await (
        await fetch(`${svc.url}/api/v1/relayers/bench/transactions?per_page=0&status=${status}`, { headers: auth })
      ).json()) as { pagination: { total_items: number } }
    ).pagination.total_items;
  const until = async (what: string, ok: () => Promise<boolean>, timeoutMs = 600_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`chain bench: ${what} not reached`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  try {
    log(`chain: anvil raw intake, ${sends} eth_sendRawTransaction @${INFLIGHT}`);
    const bodies = await rawBodies(devnet.url, sends);
    const anvilRaw0 = treeCpuSeconds(devnet.pid);
    const raw = await drive({
      url: devnet.url,
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      bodies,
      okPrefix: '{"jsonrpc":"2.0","id":1,"result"',
      inflight: INFLIGHT,
      count: sends,
      label: 'anvil raw',
    });
    const anvilRawCpu = treeCpuSeconds(devnet.pid) - anvilRaw0;
    // anvil's work for a transaction goes on after its intake: it mines it. The sends below pay that within their span.
    const rawAddress = privateKeyToAccount(RAW_KEY).address;
    const pendingNonce = await rpc<Hex>(devnet.url, 'eth_getTransactionCount', [rawAddress, 'pending']);
    await until(
      'the raw transactions mined',
      async () => (await rpc<Hex>(devnet.url, 'eth_getTransactionCount', [rawAddress, 'latest'])) === pendingNonce,
    );
    const anvilMinedCpu = treeCpuSeconds(devnet.pid) - anvilRaw0;

    const body = JSON.stringify({ to: TO, value: 1, gas_limit: 21_000, speed: 'fast' });
    const send = (count: number, label: string) =>
      drive({
        url: svc.url,
        method: 'POST',
        path: '/api/v1/relayers/bench/transactions',
        headers: auth,
        body,
        inflight: INFLIGHT,
        count,
        label,
      });
    // Warm-up, as the other scenarios have: sends through a cold service measure V8 compiling the send path.
    if (warmupSends > 0) {
      log(`chain: ${warmupSends} warm-up sends (not measured)`);
      await send(warmupSends, 'warm-up sends');
      await until('every warm-up send confirmed', async () => (await count('confirmed')) >= warmupSends);
    }
    log(`chain: ${sends} sends through Relaybox @${INFLIGHT}`);
    const measuredFrom = Date.now();
    const cpuBefore = svc.cpuSeconds();
    const anvilBefore = treeCpuSeconds(devnet.pid);
    const writtenBefore = svc.writtenBytes();
    const answered = await send(sends, 'sends');
    await until('every send confirmed', async () => (await count('confirmed')) >= warmupSends + sends);
    const cpuMsPerSend = ((svc.cpuSeconds() - cpuBefore) * 1000) / sends;
    const perTx = (seconds: number) => (seconds * 1000) / sends;
    const cpuMs = {
      raw: { anvil: perTx(anvilRawCpu), anvilMined: perTx(anvilMinedCpu), driver: perTx(raw.driverCpuSeconds) },
      send: {
        service: cpuMsPerSend,
        anvil: perTx(treeCpuSeconds(devnet.pid) - anvilBefore),
        driver: perTx(answered.driverCpuSeconds),
      },
    };
    const writtenKiBPerSend = (svc.writtenBytes() - writtenBefore) / 1024 / sends;
    const times = (await readTimes(svc.url, auth)).filter((t) => t.created >= measuredFrom);
    const created = Math.min(...times.map((t) => t.created));
    const toSubmitted = times.map((t) => t.sent - t.created).sort((a, b) => a - b);
    const submittedPerSecond = times.length / ((Math.max(...times.map((t) => t.sent)) - created) / 1000);
    const confirmedPerSecond = times.length / ((Math.max(...times.map((t) => t.confirmed)) - created) / 1000);

    const monitoring = await monitor(svc, devnet.url, pending, options.monitorMs, drive, auth, count, until, log);
    const summary: ChainSummary = {
      sends,
      warmupSends,
      rawIntakePerSecond: raw.rps,
      answeredPerSecond: answered.rps,
      submittedPerSecond,
      confirmedPerSecond,
      submittedVsRaw: submittedPerSecond / raw.rps,
      cpuMsPerSend,
      writtenKiBPerSend,
      cpuMs,
      timeToSubmittedMs: { p50: pct(toSubmitted, 0.5), p99: pct(toSubmitted, 0.99) },
      monitoring,
    };
    const errors = raw.errors + answered.errors;
    const rows: Row[] = [
      {
        scenario: 'anvil raw eth_sendRawTransaction (same driver)',
        inflight: INFLIGHT,
        requests: raw.requests,
        errors: raw.errors,
        rps: raw.rps,
        p50: raw.p50,
        p99: raw.p99,
        max: raw.max,
        note: `CPU per transaction: anvil ${ms(cpuMs.raw.anvil)} (${ms(cpuMs.raw.anvilMined)} once mined), driver ${ms(cpuMs.raw.driver)}`,
      },
      {
        scenario: 'EVM send answered (HTTP)',
        inflight: INFLIGHT,
        requests: answered.requests,
        errors: answered.errors,
        rps: answered.rps,
        p50: answered.p50,
        p99: answered.p99,
        max: answered.max,
      },
      {
        scenario: 'EVM send → submitted (time to submitted)',
        inflight: INFLIGHT,
        requests: times.length,
        errors,
        rps: submittedPerSecond,
        p50: summary.timeToSubmittedMs.p50,
        p99: summary.timeToSubmittedMs.p99,
        max: toSubmitted.at(-1) ?? 0,
        note: `${summary.submittedVsRaw.toFixed(2)} of anvil raw intake, service CPU ${cpuMsPerSend.toFixed(2)} ms and ${writtenKiBPerSend.toFixed(1)} KiB written per send; anvil ${ms(cpuMs.send.anvil)}, driver ${ms(cpuMs.send.driver)}`,
      },
      {
        scenario: 'EVM send → confirmed (1 s blocks)',
        inflight: INFLIGHT,
        requests: times.length,
        errors: 0,
        rps: confirmedPerSecond,
        p50: 0,
        p99: 0,
        max: 0,
      },
      {
        scenario: `tracking ${pending.toLocaleString('en-US')} pending (service CPU ${monitoring.serviceCpuPercent.toFixed(1)}%, mined → confirmed ${monitoring.minedToConfirmedSeconds.toFixed(1)} s)`,
        inflight: 0,
        requests: pending,
        errors: 0,
        rps: monitoring.confirmationsPerSecond,
        p50: 0,
        p99: 0,
        max: 0,
      },
    ];
    return { rows, summary };
  } finally {
    await svc.stop();
    await devnet.stop();
  }
}

async function readTimes(
  url: string,
  auth: Record<string, string>,
): Promise<Array<{ created: number; sent: number; confirmed: number }>> {
  const out: Array<{ created: number; sent: number; confirmed: number }> = [];
  for (let page = 1; ; page++) {
    const res = (await (
      await fetch(`${url}/api/v1/relayers/bench/transactions?per_page=100&page=${page}`, { headers: auth })
    ).json()) as { data: Array<{ created_at: string; sent_at: string; confirmed_at: string }> };
    for (const t of res.data)
      out.push({
        created: Date.parse(t.created_at),
        sent: Date.parse(t.sent_at),
        confirmed: Date.parse(t.confirmed_at),
      });
    if (res.data.length < 100) return out;
  }
}

/** `pending` transactions submitted and left unmined: the service's CPU while it tracks them, then how fast it confirms them once mined. */
async function monitor(
  svc: Awaited<ReturnType<typeof startService>>,
  anvilUrl: string,
  pending: number,
  monitorMs: number,
  drive: Drive,
  auth: Record<string, string>,
  count: (status: string) => Promise<number>,
  until: (what: string, ok: () => Promise<boolean>) => Promise<void>,
  log: (m: string) => void,
): Promise<ChainSummary['monitoring']> {
  await rpc(anvilUrl, 'evm_setIntervalMining', [0]);
  await rpc(anvilUrl, 'evm_setAutomine', [false]);
  log(`chain: ${pending} sends left pending`);
  const confirmedBefore = await count('confirmed');
  const body = JSON.stringify({ to: TO, value: 1, gas_limit: 21_000, speed: 'fast' });
  await drive({
    url: svc.url,
    method: 'POST',
    path: '/api/v1/relayers/bench/transactions',
    headers: auth,
    body,
    inflight: 64,
    count: pending,
    label: 'pending sends',
  });
  await until('every pending send submitted', async () => (await count('submitted')) >= pending);
  log(`chain: tracking ${pending} pending for ${monitorMs} ms`);
  const cpu0 = svc.cpuSeconds();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, monitorMs));
  const seconds = (performance.now() - t0) / 1000;
  const serviceCpuPercent = ((svc.cpuSeconds() - cpu0) / seconds) * 100;
  // A block holds ~1,400 transfers (30M gas): mine enough for all of them at once.
  const mined0 = performance.now();
  await rpc(anvilUrl, 'anvil_mine', [`0x${(Math.ceil(pending / 1_000) + 1).toString(16)}`]);
  await until('every pending send confirmed', async () => (await count('confirmed')) >= confirmedBefore + pending);
  const minedToConfirmedSeconds = (performance.now() - mined0) / 1000;
  return {
    pending,
    serviceCpuPercent,
    secondsMeasured: seconds,
    minedToConfirmedSeconds,
    confirmationsPerSecond: pending / minedToConfirmedSeconds,
  };
}
