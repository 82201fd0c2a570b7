// Writes a transaction's new state with its transaction_update event, in the caller's store transaction, and counts
// the status change once it commits. Every status change of every family goes through here, and so does the funds
// ledger's release (issue 39): what a record holds of its relayer's balance follows its status in the same write.
import type { Tx } from '../ports.ts';
import type { StoredTransaction } from '../relayers/ports.ts';
import type { NetworkType, TransactionRecord, TransactionStatus } from '../types.ts';
import type { TransactionEvents } from './ports.ts';
import type { TransitionObserver } from './family.ts';

export interface RecordWriter {
  /** Inserts a new record (nonce indexed when not null) with its event. */
  insert(
    tx: Tx,
    record: TransactionRecord,
    createdMs: number,
    nonce: number | null,
    networkType: NetworkType,
    lane?: string,
  ): Promise<void>;
  /**
   * Writes `next` over `stored` if nobody changed it since it was read, with its event. Returns the new stored
   * state, or null when another writer got there first (the caller reads again and decides again).
   */
  update(
    tx: Tx,
    stored: StoredTransaction,
    next: TransactionRecord,
    networkType: NetworkType,
  ): Promise<StoredTransaction | null>;
  /** `update` for several records in one write where the store allows it (each still checked against its version). */
  updateMany(
    tx: Tx,
    changes: ReadonlyArray<{ stored: StoredTransaction; next: TransactionRecord }>,
    networkType: NetworkType,
  ): Promise<Array<StoredTransaction | null>>;
  /** The record's newest version is being broadcast (nothing written): counted for its re-broadcasts. */
  broadcasting(record: TransactionRecord): void;
  /**
   * A new record with what it holds of its relayer's funds (`funds_reserved`, where its family has a worst case).
   * `insert` writes it as given: the send writer reserves the batch's total itself, checked under the ledger's lock.
   */
  holding(record: TransactionRecord, networkType: NetworkType): TransactionRecord;
}

/** A family's worst-case cost of a record's newest version (EVM: value + gas_limit × max fee + L1 fee). */
export type WorstCase = (record: TransactionRecord) => bigint;

/** Until mined (or final), a send may still take its cost from the balance. */
const HOLDS: ReadonlySet<TransactionStatus> = new Set(['pending', 'sent', 'submitted']);

/** What a record, as stored, holds of its relayer's funds (none for a record written before the ledger). */
export function heldBy(record: TransactionRecord): bigint {
  const held = (record as { funds_reserved?: unknown }).funds_reserved;
  return typeof held === 'string' ? BigInt(held) : 0n;
}

export function createRecordWriter(deps: {
  events: TransactionEvents;
  observer?: TransitionObserver | undefined;
  onBroadcast?: ((record: TransactionRecord) => void) | undefined;
  /** Families whose sends hold funds: their worst case. */
  worstCase?: Partial<Record<NetworkType, WorstCase>>;
  /** The funds ledger row a record's hold is on: its lane's key in a key pool (relayers/lanes.ts); its relayer's id otherwise. */
  fundsKey?: (record: TransactionRecord) => string;
}): RecordWriter {
  const { events, observer } = deps;
  /**
   * `next` with what it holds: while unmined, the most any version signed can cost (an older version may still be
   * the one mined, so a replacement raises the hold, never lowers it); nothing once mined or final.
   */
  const holding = (
    previous: TransactionRecord | null,
    next: TransactionRecord,
    networkType: NetworkType,
  ): TransactionRecord => {
    const worst = deps.worstCase?.[networkType];
    if (!worst) return next;
    const was = previous ? heldBy(previous) : 0n;
    const now = HOLDS.has(next.status) ? (worst(next) > was ? worst(next) : was) : 0n;
    return { ...next, funds_reserved: now.toString() };
  };
  /** The ledger follows the written changes: each relayer's row once, in id order (PostgreSQL takes the locks so). */
  async function moveFunds(
    tx: Tx,
    changes: ReadonlyArray<{ from: TransactionRecord; to: TransactionRecord }>,
  ): Promise<void> {
    const moves = new Map<string, { reserved: bigint; released: bigint }>();
    for (const { from, to } of changes) {
      const was = heldBy(from);
      const now = heldBy(to);
      if (was === now) continue;
      const key = deps.fundsKey?.(to) ?? to.relayer_id;
      const m = moves.get(key) ?? { reserved: 0n, released: 0n };
      m.reserved += now - was;
      if (now === 0n) m.released += was;
      moves.set(key, m);
    }
    for (const id of [...moves.keys()].sort()) {
      const m = moves.get(id)!;
      await tx.transactions.moveFunds(id, m.reserved, m.released);
    }
  }
  /** A change that was written: its event, and its status change counted once the transaction commits. */
  async function written(
    tx: Tx,
    stored: StoredTransaction,
    next: TransactionRecord,
    networkType: NetworkType,
  ): Promise<StoredTransaction> {
    const from = stored.record.status;
    await events.transactionChanged(tx, next);
    if (observer) {
      tx.afterCommit(() => {
        if (from !== next.status) observer.transition(networkType, from, next.status);
        observer.changed?.(next, from);
      });
    }
    return { record: next, version: stored.version + 1 };
  }
  return {
    broadcasting: (record) => deps.onBroadcast?.(record),
    holding: (record, networkType) => holding(null, record, networkType),
    async insert(tx, record, createdMs, nonce, networkType, lane) {
      await (lane
        ? tx.transactions.insert(record, createdMs, nonce, lane)
        : tx.transactions.insert(record, createdMs, nonce));
      await events.transactionChanged(tx, record);
      if (observer) {
        tx.afterCommit(() => {
          observer.transition(networkType, null, record.status);
          observer.changed?.(record, null);
        });
      }
    },
    async update(tx, stored, next, networkType) {
      const from = stored.record.status;
      const record = holding(stored.record, next, networkType);
      if (!(await tx.transactions.update(record, from, stored.version))) return null;
      await moveFunds(tx, [{ from: stored.record, to: record }]);
      return written(tx, stored, record, networkType);
    },
    async updateMany(tx, changes, networkType) {
      const records = changes.map((c) => holding(c.stored.record, c.next, networkType));
      const updated = await tx.transactions.updateMany(
        changes.map((c, k) => ({
          record: records[k]!,
          previousStatus: c.stored.record.status,
          expectedVersion: c.stored.version,
        })),
      );
      await moveFunds(
        tx,
        changes.flatMap((c, k) => (updated[k] ? [{ from: c.stored.record, to: records[k]! }] : [])),
      );
      const out: Array<StoredTransaction | null> = [];
      for (const [k, c] of changes.entries())
        out.push(updated[k] ? await written(tx, c.stored, records[k]!, networkType) : null);
      return out;
    },
  };
}
