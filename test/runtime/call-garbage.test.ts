// A warm call's garbage dies young in the worker. When a long-lived object (the context's slot) held a closure made
// for each call, the worker's scavenges kept each call's objects alive and moved them to the old generation (580
// bytes per echo call, 40–50 % of what a worker allocated), and the V8 helper threads spent their time copying them.
// Measured in bytes moved by scavenges (v8.GCProfiler), not in time: the least of three windows of 20,000 calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const PROBE = fileURLToPath(new URL('../support/call-garbage.ts', import.meta.url));

test("a warm call's objects are not promoted by the worker's scavenges", { timeout: 120_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-node-snapshot', PROBE, '20000'], {
    timeout: 110_000,
  });
  const r = JSON.parse(stdout) as { calls: number; promotedPerCall: number; scavenges: number; windows: unknown[] };
  assert.equal(r.calls, 20_000);
  // 20,000 calls allocate tens of MB in a worker with a 6 MiB young generation: scavenges did run.
  assert.ok(r.scavenges >= 5, `scavenges: ${r.scavenges}`);
  assert.ok(r.promotedPerCall < 50, `bytes promoted per call, least of three windows: ${JSON.stringify(r.windows)}`);
});
