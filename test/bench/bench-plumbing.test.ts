// Runs the benchmark harness end to end on a handful of requests so it cannot rot (no timing asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config/config.ts';

test('the bench harness runs every scenario and writes its JSON record and chart', async (t) => {
  const out = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-out-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  // The chain scenario starts a devnet and a second service process: smoke size, but start-up time.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bench/run.ts'), '--smoke', `--out=${out}`],
    { cwd: PROJECT_ROOT, timeout: 240_000 },
  );
  assert.match(stdout, /\| echo plugin \| 1 \|/);
  // Issue 41's table sets each target against what the same run's floors allow.
  for (const limit of [
    /pipeline floor [\d.]+ ms/,
    /its CPU over \d cores allows/,
    /1\.5x the floor/,
    /the cores carry at most/,
  ])
    assert.match(stdout, limit);
  assert.match(
    stdout,
    /\| pipeline floor \(express 5, fork IPC, Piscina 2 threads, warm isolate applySync\) \(\w+\) \(CPU \d+ µs per call\) \| 64 \|/,
  );
  const files = readdirSync(out);
  const json = files.find((f) => f.endsWith('.json'));
  assert.ok(json && files.some((f) => f.endsWith('.svg')), files.join(', '));
  const record = JSON.parse(readFileSync(path.join(out, json), 'utf8')) as {
    mode: string;
    node: string;
    rows: Array<{ scenario: string; inflight: number; errors: number; requests: number; ratioToHttpFloor?: number }>;
  };
  assert.equal(record.mode, 'smoke');
  assert.match(record.node, /^v24\./);
  const scenarios = new Set(record.rows.map((r) => r.scenario));
  for (const name of [
    'HTTP floor (bare express 5)',
    'echo plugin',
    'log 10 lines (emit_logs)',
    'CPU loop 1e5',
    'sendTransaction (emit_traces)',
    'KV get + set',
    'create notification',
  ]) {
    assert.ok(scenarios.has(name), `missing scenario ${name}`);
  }
  assert.ok(record.rows.some((r) => r.scenario.startsWith('cold start')));
  assert.ok(record.rows.some((r) => r.scenario.startsWith('list transactions')));
  for (const chain of [
    'anvil raw eth_sendRawTransaction',
    'EVM send → submitted',
    'EVM send → confirmed',
    'tracking ',
    'Solana send → confirmed',
    'Stellar send → confirmed',
  ]) {
    assert.ok(
      record.rows.some((r) => r.scenario.startsWith(chain)),
      `missing chain scenario ${chain}`,
    );
  }
  for (const r of record.rows) {
    assert.equal(r.errors, 0, `${r.scenario} @${r.inflight} had errors`);
    assert.ok(r.requests > 0, `${r.scenario} ran no request`);
  }
  assert.ok(
    record.rows.filter((r) => r.scenario === 'echo plugin').every((r) => typeof r.ratioToHttpFloor === 'number'),
  );
});

test('the key-pool bench runs a pool and one key against a 1 s-block anvil and names the limit it reached', async () => {
  // Plumbing only: 2 s per key count, no figure asserted (the figure is measured on a quiet host).
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bench/pools.bench.ts'), '2', '1', '1,2'],
    { cwd: PROJECT_ROOT, timeout: 120_000 },
  );
  for (const keys of ['1 key', '2 keys'])
    assert.match(stdout, new RegExp(`\\| key pool, ${keys} → submitted \\(anvil 1 s blocks, 16 unmined per key\\)`));
  assert.match(
    stdout,
    /key pools: 2 keys submit [\d.]+× one key's sends per second \(target ≥ 12×\); limit reached at 2 keys: /,
  );
  const runs = JSON.parse(stdout.slice(stdout.indexOf('\n['))) as Array<{
    keys: number;
    sends: number;
    errors: number;
  }>;
  assert.deepEqual(
    runs.map((r) => r.keys),
    [1, 2],
  );
  for (const r of runs) {
    assert.equal(r.errors, 0, `${r.keys} keys had errors`);
    assert.ok(r.sends > 0, `${r.keys} keys sent nothing`);
  }
});
