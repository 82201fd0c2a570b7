// The chain scenario of `npm run bench` on its own: node bench/chain.bench.ts [sends] [pending] [monitor ms] [warm-up sends]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnDriver } from './driver.ts';
import { chainScenario } from './chain.ts';
import { table } from './report.ts';

const [sends = 500, pending = 2_000, monitorMs = 5_000, warmupSends = 0] = process.argv.slice(2).map(Number);
const root = mkdtempSync(path.join(tmpdir(), 'relaybox-chain-bench-'));
try {
  const { rows, summary } = await chainScenario({
    root,
    apiKey: 'bench-api-key-0123456789abcdef0123456789',
    sends,
    warmupSends,
    pending,
    monitorMs,
    drive: (spec) => spawnDriver({ ...spec, warmupMs: 0 }),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`${table(rows)}\n\n${JSON.stringify(summary, null, 2)}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
