// Relayer rows held briefly for the send path, where every request needs its relayer and a hot relayer's batch its
// nonce: one store read per relayer and second instead of one per request. A held row may be stale (another instance
// changed it, or sent with it): the send writer compares it with the row it locks, and signs or prepares again when
// they differ (send-writer.ts), so a stale row costs a retry, never a wrong send.
import type { RelayerRow } from './ports.ts';

export interface RelayerRowCache {
  /** The held row, or the store's when none is held or it is older than the hold time. */
  get(id: string): Promise<RelayerRow | undefined>;
  /** The store's row now (then held). */
  read(id: string): Promise<RelayerRow | undefined>;
  /** The row held now, however old, without a read (for what no change can make wrong: the relayer's network). */
  held(id: string): RelayerRow | undefined;
  /** Holds a row known to be current: a batch's row as its commit left it. */
  put(row: RelayerRow): void;
  forget(id: string): void;
}

interface Held {
  at: number;
  row: Promise<RelayerRow | undefined>;
  /** The row once read. */
  value?: RelayerRow;
}

/** How long a row is served without a read; short, as the row lock is what decides. */
export const ROW_HOLD_MS = 1_000;
/** Rows held at most (one per relayer in use); beyond it the oldest is dropped. */
const MAX_HELD = 1_024;

export function createRelayerRowCache(
  readRow: (id: string) => Promise<RelayerRow | undefined>,
  now: () => number = Date.now,
): RelayerRowCache {
  const held = new Map<string, Held>();
  const hold = (id: string, row: Promise<RelayerRow | undefined>, value?: RelayerRow) => {
    held.delete(id);
    if (held.size >= MAX_HELD) held.delete(held.keys().next().value!);
    const entry: Held = { at: now(), row, value };
    held.set(id, entry);
    return entry;
  };
  const read = (id: string) => {
    // Concurrent requests share one read; a failed or empty read is not held.
    const row = readRow(id);
    const entry = hold(id, row);
    row.then(
      (found) => (found === undefined ? held.get(id) === entry && held.delete(id) : (entry.value = found)),
      () => held.get(id) === entry && held.delete(id),
    );
    return row;
  };
  return {
    get(id) {
      const found = held.get(id);
      return found && now() - found.at < ROW_HOLD_MS ? found.row : read(id);
    },
    read,
    held: (id) => held.get(id)?.value,
    put: (row) => void hold(row.id, Promise.resolve(row), row),
    forget: (id) => void held.delete(id),
  };
}

/** Everything but the nonce and clock alike: a send prepared with `a` is what it would be with `b`. */
export function sameSettings(a: RelayerRow, b: RelayerRow): boolean {
  if (a === b) return true;
  const { next_nonce: _n1, last_created_ms: _c1, ...left } = a;
  const { next_nonce: _n2, last_created_ms: _c2, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}
