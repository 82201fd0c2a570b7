// The chaos suite's short version, inside npm test: the faults of test/chaos/full.chaos.ts in turn (all but the
// sequencer, which is another chain; issue 40's swallowing URL and held-in-queue included) under one stream of four dozen sends, each POSTed twice racing on one
// Idempotency-Key, against one service: one start-up instead of eight keeps it within its budget. Same verdict as the
// full version: every record final, nothing applied twice, no nonce gap, never a transaction left unscheduled.
// The full version: npm run test:chaos.
import { test } from 'node:test';
import {
  allRpcDown,
  anvilRestart,
  feeSpike,
  flakyRpc,
  heldInQueue,
  inTurn,
  noncesBehindBack,
  serviceKill,
  swallowingProvider,
} from './scenarios.ts';
import { drainedPoolKey } from './pool-scenarios.ts';
import { runScenario } from './run.ts';
import { assertRow, table, writeResults } from './report.ts';

// No valid_until here: an expiry NOOP that loses the race to its original leaves a confirmed record describing the NOOP
// (docs/transactions.md, the chaos suite's findings); the full version's fee spike keeps that case and fails on it.
const spike = { ...feeSpike, sendExtra: undefined };
const scenario = inTurn(
  'short: every fault in turn',
  [spike, flakyRpc, allRpcDown, anvilRestart, serviceKill, noncesBehindBack, swallowingProvider, heldInQueue],
  2,
);

test(`chaos (short): ${scenario.fault}, under one stream of sends with racing duplicates`, async (t) => {
  const row = await runScenario(scenario, { sends: 48, spreadMs: 24_000, faultMs: 2_000, leadMs: 2_000 }, 60_000);
  t.diagnostic(
    `\n${table([row])}\nevidence: ${JSON.stringify(row.evidence)} (written to ${writeResults('short', [row])})`,
  );
  assertRow(row);
});

// Issue 44: a pool of four keys whose first key (the relayer row's own lane) is drained mid-run and funded again: the
// other keys keep the throughput, the relayer is not disabled, every key's nonces hold, the drained key's sends end final.
test('chaos (short): a key pool whose first key is drained mid-run keeps sending through its other keys', async (t) => {
  const pool = drainedPoolKey(0);
  const row = await runScenario(pool, { sends: 36, spreadMs: 14_000, faultMs: 7_000, leadMs: 2_000 }, 60_000);
  t.diagnostic(
    `\n${table([row])}\nevidence: ${JSON.stringify(row.evidence)} (written to ${writeResults('short-pool', [row])})`,
  );
  assertRow(row);
});
