// Bench: sends per second with a signer that answers in 20 ms (a remote KMS's round trip), beside local keys, in one
// service and one run. Two EVM relayers on one local anvil (automine), each with its own key: `local` signs at once,
// `remote 20 ms` signs through test/support/signer-faults.ts with every signature delayed 20 ms.
// Run alone: node bench/signer-latency.ts [ms per figure]   (in `npm run bench`: the "signer latency" rows)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, signerSettings } from '../src/config/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp } from '../src/app.ts';
import { createSignerResolver } from '../src/signers/registry.ts';
import type { SignerResolver } from '../src/domain/signers/ports.ts';
import { faultySigners } from '../test/support/signer-faults.ts';
import { spawnDriver, type DriverSpec } from './driver.ts';
import type { Row } from './report.ts';

const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
// Anvil's accounts #0 and #1: publicly known development keys, funded on every anvil.
const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
];
// Prices and gas given, so a send reads nothing from the chain but the balance (shared per relayer).
const BODY = JSON.stringify({
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: 1,
  gas_limit: 21000,
  max_fee_per_gas: 20_000_000_000,
  max_priority_fee_per_gas: 1_000_000_000,
});
const SIGNER_DELAY_MS = 20;

export interface SignerLatencyOptions {
  inflights: number[];
  /** Per figure: a duration, or a count of sends (the smoke run). */
  durationMs?: number;
  count?: number;
  log(message: string): void;
}

export async function signerLatency(options: SignerLatencyOptions): Promise<Row[]> {
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-signer-bench-'));
  const configPath = path.join(root, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [
        {
          type: 'evm',
          network: 'devnet',
          chain_id: 31337,
          required_confirmations: 1,
          symbol: 'ETH',
          average_blocktime_ms: 1000,
          is_testnet: true,
          features: ['eip1559'],
          devnet: {},
        },
      ],
      signers: KEYS.map((key, i) => ({
        id: i === 0 ? 'local' : 'remote',
        type: 'local',
        development: true,
        private_key: key,
      })),
      relayers: [
        { id: 'local', name: 'local key', network: 'devnet', signer_id: 'local' },
        { id: 'remote', name: 'signer answering in 20 ms', network: 'devnet', signer_id: 'remote' },
      ],
      notifications: [],
    }),
  );
  const base = createSignerResolver({ env: process.env, settings: signerSettings(process.env) });
  const slow = faultySigners(base);
  slow.faults.delayMs = SIGNER_DELAY_MS;
  const resolveSigner: SignerResolver = (entry, networkType) =>
    (entry.id === 'remote' ? slow.resolveSigner : base)(entry, networkType);
  const config = loadConfig({
    API_KEY,
    CONFIG_PATH: configPath,
    DATA_DIR: path.join(root, 'data'),
    PLUGINS_DIR: path.join(root, 'plugins'),
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
  });
  const app = await createApp(config, createLogger('error'), { resolveSigner });
  const rows: Row[] = [];
  try {
    const server = await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const inflight of options.inflights) {
      for (const [relayer, scenario] of [
        ['local', 'EVM send, local key'],
        ['remote', `EVM send, signer answering in ${SIGNER_DELAY_MS} ms`],
      ] as const) {
        options.log(`${scenario} @${inflight}`);
        const spec: DriverSpec = {
          url,
          method: 'POST',
          path: `/api/v1/relayers/${relayer}/transactions`,
          headers: HEADERS,
          body: BODY,
          inflight,
          warmupMs: 0,
          label: `${relayer}@${inflight}`,
          ...(options.count ? { count: options.count } : { durationMs: options.durationMs ?? 3000 }),
        };
        const r = await spawnDriver(spec);
        if (r.errors) options.log(`  ! ${scenario} @${inflight}: ${r.errors} errors, first: ${r.firstError}`);
        rows.push({
          scenario,
          inflight,
          requests: r.requests,
          errors: r.errors,
          rps: r.rps,
          p50: r.p50,
          p99: r.p99,
          max: r.max,
        });
      }
    }
  } finally {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.main) {
  const durationMs = Number(process.argv[2] ?? 3000);
  const rows = await signerLatency({ inflights: [1, 16, 64], durationMs, log: (m) => process.stderr.write(`${m}\n`) });
  const { table } = await import('./report.ts');
  process.stdout.write(`${table(rows)}\n`);
}
