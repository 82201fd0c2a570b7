// The chaos suite's own checks can fail: the schedule sampler flags a non-final transaction whose relayer has no
// evm.check job (on a store built by hand with the two tables it reads), and not a final one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { sampleSchedule } from './schedule-sampler.ts';

test('the schedule sampler counts a non-final transaction without its relayer check as a violation', async () => {
  const db = new Database(':memory:');
  db.exec(
    'CREATE TABLE transactions (id TEXT, relayer_id TEXT, status TEXT); CREATE TABLE jobs (kind TEXT, subject TEXT)',
  );
  db.exec(
    "INSERT INTO transactions VALUES ('a', 'r1', 'submitted'), ('b', 'r2', 'confirmed'), ('c', 'r3', 'mined'); INSERT INTO jobs VALUES ('evm.check', 'r1')",
  );
  const report = sampleSchedule(() => db).stop();
  assert.equal(report.samples, 1);
  assert.equal(report.violations, 1);
  assert.deepEqual(report.unscheduled, ['c: mined']);
  assert.equal(report.maxNonFinal, 2);

  db.exec("INSERT INTO jobs VALUES ('evm.check', 'r3')");
  const clean = sampleSchedule(() => db).stop();
  assert.equal(clean.violations, 0);
});
