// The full chaos suite (npm run test:chaos): each scenario of issue 26 once, a few hundred sends through the API while
// its fault runs, then every record final, nothing applied twice, no nonce gap, never a transaction left unscheduled;
// and issue 44's key pool with one key drained mid-run (pool-drained-key-0, pool-drained-key-3).
// Not in npm test (its name does not match *.test.ts): test/chaos/short.test.ts runs a short version there.
// CHAOS_ONLY=name[,name] runs some; CHAOS_SCALE=0.1 scales sends and durations down (while developing).
import { after, test } from 'node:test';
import { ALL } from './scenarios.ts';
import { POOL_SCENARIOS } from './pool-scenarios.ts';
import { runScenario, type Row, type Size } from './run.ts';
import { assertRow, table, writeResults } from './report.ts';

const scale = Number(process.env.CHAOS_SCALE ?? 1);
const only = process.env.CHAOS_ONLY?.split(',');
/** A few hundred sends spread over 90 s; the fault lasts a minute (the fee spike, the flaky URL) or 20 s (outages). */
const SIZES: Record<string, Size> = {
  'fee-spike': { sends: 300, spreadMs: 90_000, faultMs: 60_000 },
  'flaky-rpc': { sends: 300, spreadMs: 90_000, faultMs: 60_000 },
  // Bursts, so that sends race to a chain that refuses nonce gaps.
  sequencer: { sends: 300, spreadMs: 20_000, faultMs: 0 },
  default: { sends: 300, spreadMs: 60_000, faultMs: 20_000 },
};
const sized = (name: string): Size => {
  const base = SIZES[name] ?? SIZES.default!;
  return {
    sends: Math.max(10, Math.round(base.sends * scale)),
    spreadMs: base.spreadMs * scale,
    faultMs: base.faultMs * scale,
  };
};

const rows: Row[] = [];
after(() => {
  if (rows.length === 0) return;
  console.log(
    `\nchaos suite (${scale === 1 ? 'full' : `scale ${scale}`}):\n${table(rows)}\n(written to ${writeResults(scale === 1 ? 'full' : 'scaled', rows)})`,
  );
});

for (const scenario of [...ALL, ...POOL_SCENARIOS]) {
  test(`chaos: ${scenario.name} (${scenario.fault})`, {
    skip: only && !only.includes(scenario.name) ? 'not in CHAOS_ONLY' : (scenario.skip ?? false),
  }, async (t) => {
    const row = await runScenario(scenario, sized(scenario.name), 300_000);
    rows.push(row);
    t.diagnostic(
      JSON.stringify({ ...row, schedule: { ...row.schedule, unscheduled: row.schedule.unscheduled.slice(0, 3) } }),
    );
    assertRow(row);
  });
}
