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
