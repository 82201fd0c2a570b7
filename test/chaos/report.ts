// What a chaos run reports: one assertion set per scenario (the "at the end of each"), and the table of counts,
// printed and written to test/chaos/results/<name>.json (gitignored).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INFO } from './scenarios.ts';
import type { Row } from './run.ts';

export function assertRow(row: Row): void {
  const where = `${row.scenario}: ${JSON.stringify({ statuses: row.statuses, refusals: row.refusals, evidence: row.evidence, mismatches: row.mismatches.slice(0, 5), storedTwice: row.storedTwice.slice(0, 6), unscheduled: row.schedule.unscheduled })}`;
  for (const [k, v] of Object.entries(row.evidence))
    if (!k.startsWith(INFO)) assert.ok(v > 0, `the fault did not hit (${k} = ${v}) — ${where}`);
  assert.ok(row.acked > 0, `nothing acknowledged — ${where}`);
  assert.ok(row.schedule.samples > 0, `the schedule was never sampled — ${where}`);
  assert.equal(row.stuck, 0, `stuck — ${where}`);
  assert.equal(row.duplicates, 0, `applied twice — ${where}`);
  assert.equal(row.duplicateRecords, 0, `stored twice — ${where}`);
  assert.equal(row.nonceGaps, 0, `nonce gap — ${where}`);
  assert.equal(row.unaccounted, 0, `mined but in no record — ${where}`);
  assert.equal(row.refusedButApplied, 0, `refused yet applied — ${where}`);
  assert.equal(row.ackedLost, 0, `acknowledged but lost — ${where}`);
  assert.deepEqual(row.mismatches, [], `final status disagrees with the chain — ${where}`);
  assert.equal(row.schedule.violations, 0, `a non-final transaction without a scheduled check — ${where}`);
  assert.deepEqual(row.judged, [], `the scenario's own verdict — ${where}`);
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function table(rows: Row[]): string {
  const head = [
    'scenario',
    'fault',
    'sends',
    'acked / refused / cut',
    'final states',
    'stuck',
    'duplicates',
    'nonce gaps',
    'unscheduled samples',
    'peak non-final',
    "time to drain: the fault's backlog",
    'after the last send',
    'run',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.fault,
    String(r.sends),
    `${r.acked} / ${r.refused} / ${r.unknown}`,
    Object.entries(r.statuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    String(r.stuck),
    String(r.duplicates + r.duplicateRecords),
    String(r.nonceGaps),
    `${r.schedule.violations} of ${r.schedule.samples}`,
    String(r.schedule.maxNonFinal),
    `${r.drainMs.backlog.size} in ${s(r.drainMs.backlog.ms)}`,
    s(r.drainMs.afterLastSend),
    s(r.totalMs),
  ]);
  return [head, head.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function writeResults(name: string, rows: Row[]): string {
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2),
  );
  return file;
}
