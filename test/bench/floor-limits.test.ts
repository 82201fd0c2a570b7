// What the floors of a run allow each of issue 27's targets (bench/report.ts floorLimits), from rows as a run writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floorLimits, type Row } from '../../bench/report.ts';

const row = (scenario: string, inflight: number, fields: Partial<Row>): Row => ({ scenario, inflight, requests: 1, errors: 0, rps: 1, p50: 0, p99: 0, max: 0, ...fields });
const rows = [
  row('HTTP floor (bare express 5, wrk)', 1, { p50: 0.14 }),
  row('HTTP floor (bare express 5, wrk)', 64, { cpuUsPerCall: 49 }),
  row('crossings floor (fork IPC …)', 1, { p50: 0.15 }),
  row('crossings floor (fork IPC …)', 64, { cpuUsPerCall: 44 }),
  row('sandbox floor (isolate call, no pool, no HTTP)', 0, { p50: 0.04 }),
];
const chain = { rawIntakePerSecond: 4500, submittedPerSecond: 1300, submittedVsRaw: 0.29, cpuMs: { raw: { anvil: 0.22, anvilMined: 0.24, driver: 0.15 }, send: { service: 0.87, anvil: 0.43, driver: 0.15 } } };

test('the latencies of the floors add up; their CPU per call bounds the share of bare express; the shared cores bound the sends', () => {
  const limits = floorLimits(rows, chain, 2);
  assert.ok(Math.abs(limits.p50Sum! - 0.33) < 1e-9, String(limits.p50Sum));
  assert.ok(Math.abs(limits.ratio64! - 49 / 93) < 1e-9, String(limits.ratio64));
  // Two cores at 1.45 ms of CPU per relayed send (all three parties): 1,379 sends/s, 0.31 of 4,500/s.
  assert.ok(Math.abs(limits.sendRatio! - 2000 / 1.45 / 4500) < 1e-9, String(limits.sendRatio));
  // Half of 4,500/s on two cores: 0.89 ms of CPU per send for all three, 0.31 ms of it the service's.
  assert.ok(Math.abs(limits.serviceMsForHalf! - (2000 / 2250 - 0.58)) < 1e-9, String(limits.serviceMsForHalf));
});

test('a limit whose floor the run did not measure is left out', () => {
  assert.deepEqual(floorLimits(rows.slice(0, 2)), { p50Sum: undefined, ratio64: undefined, sendRatio: undefined, serviceMsForHalf: undefined });
});
