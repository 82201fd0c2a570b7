// Bulk-seeds a relayer's transactions straight into the store, copying one real signed record as the template.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * Inserts `extra` copies of `template` (the relayer's newest real record) with fresh ids, the
 * following nonces and strictly later timestamps, and moves the relayer's counters to match,
 * in one transaction.
 */
export function seedTransactions(
  db: Database.Database,
  relayerId: string,
  template: Record<string, unknown>,
  extra: number,
): void {
  const insert = db.prepare(
    'INSERT INTO transactions (id, relayer_id, status, created_ms, nonce, version, record) VALUES (?, ?, ?, ?, ?, 1, ?)',
  );
  const t0 = Date.parse(template.created_at as string);
  const nonce0 = Number(template.nonce);
  db.transaction(() => {
    for (let i = 1; i <= extra; i++) {
      const id = randomUUID();
      const createdMs = t0 + i;
      const record = { ...template, id, nonce: nonce0 + i, created_at: new Date(createdMs).toISOString() };
      insert.run(id, relayerId, 'pending', createdMs, nonce0 + i, JSON.stringify(record));
    }
    db.prepare("UPDATE transaction_counts SET count = count + ? WHERE relayer_id = ? AND status = 'pending'").run(
      extra,
      relayerId,
    );
    db.prepare('UPDATE relayers SET next_nonce = ?, last_created_ms = ? WHERE id = ?').run(
      nonce0 + extra + 1,
      t0 + extra,
      relayerId,
    );
  })();
  db.exec('ANALYZE');
}
