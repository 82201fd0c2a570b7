// The key-pool scenario of `npm run bench` on its own: node bench/pools.bench.ts [seconds] [repeats] [keys list]
// e.g. `node bench/pools.bench.ts 20 3 1,4,16` (the defaults): the table, the 16-to-1 ratio with the limit it reached,
// and the runs as JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { poolScenario, ratioLine } from './pools.ts';
import { table } from './report.ts';

const [secondsArg = '20', repeatsArg = '3', keysArg = '1,4,16'] = process.argv.slice(2);
const seconds = Number(secondsArg);
const repeats = Number(repeatsArg);
const keys = keysArg.split(',').map(Number);
if (!(seconds > 0) || !Number.isInteger(repeats) || repeats < 1 || keys.some((k) => !Number.isInteger(k) || k < 1))
  throw new Error(`usage: node bench/pools.bench.ts <seconds> <repeats> <keys list, e.g. 1,4,16>`);
const root = mkdtempSync(path.join(tmpdir(), 'relaybox-pools-bench-'));
try {
  const { rows, summary } = await poolScenario({
    root,
    apiKey: 'bench-api-key-0123456789abcdef0123456789',
    seconds,
    repeats,
    keys,
    warmupSeconds: seconds >= 5 ? 3 : 0,
    log: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`${table(rows)}\n\n${ratioLine(summary)}\n\n${JSON.stringify(summary.runs, null, 2)}\n`);
  if (rows.some((r) => r.errors > 0)) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
