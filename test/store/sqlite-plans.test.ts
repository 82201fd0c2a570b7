// The SQLite statements of the send path, as the store prepares them, read with EXPLAIN on a real migrated file:
// writes of a transaction build no temporary b-tree (each one had a page cache of its own, created and freed per row
// written: an IN list of more than two constants in a partial index's condition did that), and the tracking walk
// still reads the partial index of unfinished transactions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createTransactionsRepo } from '../../src/store/sqlite/transactions-repo.ts';

function preparedStatements(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-plans-'));
  const db = openDatabase(dir);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => (seen.push(sql), prepare(sql))) as typeof db.prepare;
  createTransactionsRepo(db);
  db.prepare = prepare;
  // EXPLAIN needs every parameter bound; a literal in each place compiles to the same program shape.
  const opcodes = (sql: string) =>
    (prepare(`EXPLAIN ${sql.replace(/\?/g, '1')}`).all() as Array<{ opcode: string }>).map((r) => r.opcode);
  const plan = (sql: string) =>
    (prepare(`EXPLAIN QUERY PLAN ${sql.replace(/\?/g, '1')}`).all() as Array<{ detail: string }>)
      .map((r) => r.detail)
      .join(' | ');
  return { seen, opcodes, plan };
}

test('a transaction insert or update builds no temporary b-tree', (t) => {
  const { seen, opcodes } = preparedStatements(t);
  const writes = seen.filter((sql) => /^\s*(INSERT INTO|UPDATE) transactions\b/.test(sql));
  assert.equal(writes.length, 2, 'the insert and the update of a transaction');
  for (const sql of writes)
    assert.deepEqual(
      opcodes(sql).filter((op) => op === 'OpenEphemeral'),
      [],
      sql,
    );
});

test('the walk of unfinished transactions reads the partial index', (t) => {
  const { seen, plan } = preparedStatements(t);
  const walk = seen.find((sql) => /nonce IS NOT NULL/.test(sql) && /ORDER BY nonce/.test(sql));
  assert.ok(walk, 'the unfinished walk is prepared');
  assert.match(plan(walk), /USING INDEX transactions_unfinished/);
});
