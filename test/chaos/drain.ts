// How long the service takes to bring its transactions to a final status, read from its store (read-only): the whole
// store once the traffic is over, and the backlog a fault left (what was non-final when it ended).
import type Database from 'better-sqlite3';

const NON_FINAL = "status IN ('pending', 'sent', 'submitted', 'mined')";
const POLL_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the store holds no non-final transaction, or throws naming what is left. */
export async function drain(db: () => Database.Database, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const left = db()
      .prepare(`SELECT id || ': ' || status FROM transactions WHERE ${NON_FINAL}`)
      .pluck()
      .all() as string[];
    if (left.length === 0) return;
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `not drained within ${timeoutMs} ms: ${left.length} non-final, e.g. ${left.slice(0, 5).join(', ')}`,
      );
    await sleep(POLL_MS);
  }
}

export interface Backlog {
  /** Non-final transactions when the fault ended. */
  size: number;
  /** Until every one of them was final. */
  ms: number;
}

/** Starts now: the transactions non-final at this moment, and the time until all of them are final. */
export async function watchBacklog(db: () => Database.Database, timeoutMs: number): Promise<Backlog> {
  const started = Date.now();
  const ids = JSON.stringify(db().prepare(`SELECT id FROM transactions WHERE ${NON_FINAL}`).pluck().all());
  const size = (JSON.parse(ids) as string[]).length;
  const left = db()
    .prepare(`SELECT COUNT(*) FROM transactions WHERE id IN (SELECT value FROM json_each(?)) AND ${NON_FINAL}`)
    .pluck();
  while ((left.get(ids) as number) > 0) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`the fault's backlog of ${size} not final within ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
  return { size, ms: Date.now() - started };
}
