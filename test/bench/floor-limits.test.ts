// What the floors of a run allow each of issue 41's targets (bench/report.ts floorLimits), from rows as a run writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floorLimits, type Row } from '../../bench/report.ts';

const row = (scenario: string, inflight: number, fields: Partial<Row>): Row => ({
  scenario,
  inflight,
  requests: 1,
  errors: 0,
  rps: 1,
  p50: 0,
  p99: 0,
  max: 0,
  ...fields,
});
const PIPELINE = 'pipeline floor (express 5, fork IPC, Piscina 2 threads, warm isolate applySync) (wrk)';
// Figures of the 2026-12-01 measurement (issue 41): bare express 17,576/s on its one thread at 57 µs of CPU per call;
// the pipeline floor 1.10 of it at 103 µs per call, spread over the HTTP process, the runtime process and 2 workers.
const rows = [
  row('HTTP floor (bare express 5, wrk)', 1, { p50: 0.112 }),
  row('HTTP floor (bare express 5, wrk)', 64, { rps: 17576, cpuUsPerCall: 57 }),
  row(PIPELINE, 1, { p50: 0.196 }),
  row(PIPELINE, 64, { rps: 19334, cpuUsPerCall: 103 }),
];
const chain = {
  rawIntakePerSecond: 4500,
  submittedPerSecond: 1300,
  submittedVsRaw: 0.29,
  cpuMs: { raw: { anvil: 0.22, anvilMined: 0.24, driver: 0.15 }, send: { service: 0.87, anvil: 0.43, driver: 0.15 } },
};
const near = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test('the pipeline floor sets the latency and CPU targets; its CPU over the cores it runs on bounds the share of bare express', () => {
  const limits = floorLimits(rows, chain, 2);
  near(limits.p50Target, 0.296);
  near(limits.cpuUsTarget64, 154.5);
  near(limits.pipelineRatio64, 19334 / 17576);
  // Two cores at 103 µs per call: 19,417 calls/s, 1.10 of bare express.
  near(limits.ratio64, 2e6 / 103 / 17576);
  // Two cores at 1.45 ms of CPU per relayed send (all three parties): 1,379 sends/s, 0.31 of 4,500/s.
  near(limits.sendRatio, 2000 / 1.45 / 4500);
  // Half of 4,500/s on two cores: 0.89 ms of CPU per send for all three, 0.31 ms of it the service's.
  near(limits.serviceMsForHalf, 2000 / 2250 - 0.58);
});

test('a floor that meets bare express is never called impossible: the limit is at least what the floor measured', () => {
  // The old model added bare express's and the crossings' CPU as if on one core: 57 / (57 + 45) = 0.56 here.
  for (const cores of [2, 4, 8]) {
    const limits = floorLimits(rows, undefined, cores);
    assert.ok(limits.ratio64! >= 1, `${cores} cores: ${limits.ratio64}`);
    assert.ok(
      limits.ratio64! >= limits.pipelineRatio64! - 0.01,
      `${cores} cores: ${limits.ratio64} < ${limits.pipelineRatio64}`,
    );
  }
  // On one core, the four threads take turns: one core's worth of calls at the floor's CPU per call.
  near(floorLimits(rows, undefined, 1).ratio64, 1e6 / 103 / 17576);
});

test('a limit whose floor the run did not measure is left out', () => {
  assert.deepEqual(floorLimits(rows.slice(0, 2)), {
    p50Target: undefined,
    ratio64: undefined,
    pipelineRatio64: undefined,
    cpuUsTarget64: undefined,
    sendRatio: undefined,
    serviceMsForHalf: undefined,
  });
});
