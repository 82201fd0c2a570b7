// The write of a relayer's queued sends: the batch signed with the nonces that come next (outside any transaction),
// then one store transaction per batch that checks those nonces under the relayer row's lock and writes the records,
// events and jobs. A send whose signature fails fails alone and leaves no nonce gap. A send with an idempotency key
// writes its key in that transaction too: a key another request wrote first fails that send alone (KeyTakenError).
// A send prepared with a relayer row whose settings differ from the locked row's (changed meanwhile, perhaps by
// another instance) fails alone with RelayerChangedError, and is prepared again by the caller.
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Atomically, Tx } from '../ports.ts';
import type { FundsLedger, RelayerRow } from '../relayers/ports.ts';
import { sameSettings, type RelayerRowCache } from '../relayers/row-cache.ts';
import type { NetworkType, TransactionRecord } from '../types.ts';
import type { PreparedSend, RelayFamily } from './family.ts';
import { heldBy, type RecordWriter } from './record-writer.ts';
import { newTransactionId } from './transaction-id.ts';
import { IDEMPOTENCY_RETENTION_MS, KeyTakenError, type IdempotencyClaimOf } from '../idempotency/sends.ts';
import { relayerIdOf, splitLaneKey } from '../relayers/lanes.ts';
import { requireActive } from '../relayers/active-state.ts';
import { LaneFullError } from '../relayers/lane-routing.ts';

/** A send waiting in its relayer's queue: its network reads are done, its nonce is not yet taken. */
export interface PendingSend {
  relayerId: string;
  /** The row the send was prepared with (policies, network, signer). */
  relayer: RelayerRow;
  prepared: PreparedSend;
  /** Its Idempotency-Key, written with its transaction. */
  idempotency?: IdempotencyClaimOf;
  /** A pool lane's in-flight limit (max_pending_per_key), checked under the lane's lock; absent without a pool. */
  maxPending?: number;
}

type Built = ReturnType<PreparedSend['build']>;
interface Taken {
  b: Built;
  createdMs: number;
  /** The relayer's nonce and clock once this send took its own. */
  after: RelayerRow;
}

/**
 * A paused relayer refuses sends and replaces (400, naming the way out); one the system took out of service (its
 * balance under min_balance with no other key funded, its signer unreachable) refuses them as the reference does (403
 * "Relayer disabled"), until the check that disabled it passes again.
 */
export function refuseInactive(relayer: RelayerRow): void {
  if (relayer.paused)
    throw new ValidationError(`relayer '${relayer.id}' is paused; unpause it to send or replace transactions`);
  requireActive(relayer);
}

/** Each send's nonce and clock, in queue order, from `row`; a send whose build throws gets its Error (no nonce). */
function takeNonces(row: RelayerRow, items: readonly PendingSend[]): { taken: Array<Taken | Error>; next: RelayerRow } {
  let next = row;
  const taken = items.map((item): Taken | Error => {
    let b: Built;
    try {
      b = item.prepared.build(next);
    } catch (err) {
      return asError(err);
    }
    // created_at strictly increases per relayer, so newest-first listing has a stable order.
    const createdMs = Math.max(Date.now(), next.last_created_ms + 1);
    next = { ...next, next_nonce: b.nextNonce, last_created_ms: createdMs };
    return { b, createdMs, after: next };
  });
  return { taken, next };
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/** A send built and signed: its record's fields, nonce and clock. */
interface Signed {
  t: Taken;
  fields: Record<string, unknown>;
}

/**
 * Builds and signs each send with the nonces that follow `row`, in queue order, the signatures awaited together. A
 * send whose signature fails gets its Error and gives its nonce up: the sends after it are signed again with the
 * nonces moved down (one more round trip, only when a signature failed), so the nonces written are contiguous.
 */
async function signBatch(
  row: RelayerRow,
  items: readonly PendingSend[],
): Promise<{ results: Array<Signed | Error>; next: RelayerRow }> {
  const results: Array<Signed | Error> = new Array(items.length);
  let from = row;
  let left = items.map((_, i) => i);
  while (left.length > 0) {
    const { taken, next } = takeNonces(
      from,
      left.map((i) => items[i]!),
    );
    const settled = await Promise.allSettled(
      taken.map((t) => (t instanceof Error ? Promise.reject(t) : Promise.resolve(t.b.fields))),
    );
    const failed = settled.findIndex((s, k) => s.status === 'rejected' && !(taken[k] instanceof Error));
    const done = failed < 0 ? taken.length : failed + 1;
    for (let k = 0; k < done; k++) {
      const t = taken[k]!;
      const s = settled[k]!;
      results[left[k]!] = t instanceof Error ? t : s.status === 'rejected' ? asError(s.reason) : { t, fields: s.value };
      // The state after the last send kept (the failed one's nonce is not kept).
      if (!(t instanceof Error) && s.status === 'fulfilled') from = t.after;
    }
    if (failed < 0) return { results, next };
    left = left.slice(done);
  }
  return { results, next: from };
}

function newRecord(relayerId: string, t: Taken, fields: Record<string, unknown>): TransactionRecord {
  return {
    id: newTransactionId(t.createdMs),
    // A pool lane's sends are its relayer's (`relayerId` may be a lane key).
    relayer_id: relayerIdOf(relayerId),
    status: t.b.status,
    status_reason: null,
    created_at: new Date(t.createdMs).toISOString(),
    sent_at: null,
    confirmed_at: null,
    ...fields,
  };
}

/** The relayer's settings changed after the send was prepared with them: prepare it again with the current row. */
export class RelayerChangedError extends Error {
  constructor(relayerId: string) {
    super(`relayer '${relayerId}' changed while the send was prepared`);
  }
}

/** Thrown in a batch's transaction (rolling it back): the sends at `positions` leave the batch, each with its error. */
class LeaveBatch extends Error {
  readonly positions: number[];
  readonly errorOf: (item: PendingSend) => Error;
  constructor(positions: number[], errorOf: (item: PendingSend) => Error) {
    super('sends leave the batch');
    this.positions = positions;
    this.errorOf = errorOf;
  }
}

/** Throws LeaveBatch for the sends prepared with settings other than the locked row's. */
function checkSettings(locked: RelayerRow, items: readonly PendingSend[]): void {
  const alike = new Set<RelayerRow>();
  const changed: number[] = [];
  items.forEach((item, k) => {
    if (alike.has(item.relayer)) return;
    if (sameSettings(item.relayer, locked)) alike.add(item.relayer);
    else changed.push(k);
  });
  if (changed.length > 0) throw new LeaveBatch(changed, (item) => new RelayerChangedError(item.relayerId));
}

/**
 * Writes the keys of the batch's keyed sends (`records` in queue order); throws LeaveBatch with the positions of those
 * whose key is held by another request (or by an earlier send of this batch), before anything else is written.
 */
async function claimKeys(
  tx: Tx,
  relayerId: string,
  items: readonly PendingSend[],
  records: ReadonlyArray<TransactionRecord | Error>,
): Promise<void> {
  const claims: Array<{ k: number; key: string; requestHash: string; transactionId: string }> = [];
  const taken: number[] = [];
  const keys = new Set<string>();
  items.forEach((item, k) => {
    const record = records[k];
    if (!item.idempotency || record instanceof Error) return;
    if (keys.has(item.idempotency.key)) return void taken.push(k);
    keys.add(item.idempotency.key);
    claims.push({ k, ...item.idempotency, transactionId: record!.id });
  });
  if (claims.length === 0) return;
  const now = Date.now();
  const written = new Set(await tx.idempotency.insert(relayerId, claims, now, now - IDEMPOTENCY_RETENTION_MS));
  for (const c of claims) if (!written.has(c.key)) taken.push(c.k);
  if (taken.length > 0) throw new LeaveBatch(taken, (item) => new KeyTakenError(item.idempotency!.key));
}

/** What the batch's sends hold of the relayer's funds (their records' `funds_reserved`), each and in all. */
function holds(records: ReadonlyArray<TransactionRecord | Error>): { costs: bigint[]; total: bigint } {
  const costs = records.map((r) => (r instanceof Error ? 0n : heldBy(r)));
  return { costs, total: costs.reduce((a, b) => a + b, 0n) };
}

/**
 * Admits the batch's sends against the ledger as the nonce's statement wrote it (`ledger`, `total` added, its row
 * locked until the commit: another instance's batch waits, then sees these reservations), in queue order, each against
 * what the ones before it hold. Throws LeaveBatch with the refused ones (rolled back, the ledger too): no refused send
 * takes a nonce.
 */
function admitFunds(
  items: readonly PendingSend[],
  costs: readonly bigint[],
  total: bigint,
  ledger: FundsLedger | undefined,
): void {
  if (total === 0n || !ledger) return;
  let reserved = ledger.reserved - total;
  const refused = new Map<PendingSend, Error>();
  items.forEach((item, k) => {
    const cost = costs[k]!;
    if (cost === 0n) return;
    const err = item.prepared.admit?.(ledger, reserved, cost) ?? null;
    if (err) refused.set(item, err);
    else reserved += cost;
  });
  if (refused.size > 0)
    throw new LeaveBatch(
      items.flatMap((item, k) => (refused.has(item) ? [k] : [])),
      (item) => refused.get(item)!,
    );
}

/**
 * A pool lane's in-flight limit, under its lock (the row `advanceFrom` just took): the sends past what it has room
 * for leave the batch with LaneFullError (their caller routes them to another lane). Nothing to check without a pool.
 */
async function admitLane(
  tx: Tx,
  laneId: string,
  items: readonly PendingSend[],
  out: ReadonlyArray<TransactionRecord | Error>,
): Promise<void> {
  const max = items[0]?.maxPending;
  if (max === undefined) return;
  const [relayerId, lane] = splitLaneKey(laneId);
  let room = max - ((await tx.relayers.lanePending(relayerId))[lane] ?? 0);
  const full = out.flatMap((r, k) => (r instanceof Error || room-- > 0 ? [] : [k]));
  if (full.length > 0) throw new LeaveBatch(full, () => new LaneFullError(laneId, max));
}

const STALE = Symbol('stale');
/** Signing outside the lock is tried this many times before the batch is signed under it (another writer keeps moving the nonce). */
const UNLOCKED_ATTEMPTS = 3;

export interface SendWriterDeps {
  atomically: Atomically;
  /**
   * The relayer's row outside any transaction (the nonce the batch will most likely get): held (`get`) for the first
   * attempt, the store's (`read`) after the row lock found it stale; `put` holds the row a batch's commit left.
   */
  rows: Pick<RelayerRowCache, 'get' | 'read' | 'put'>;
  writer: RecordWriter;
  families: Record<NetworkType, RelayFamily>;
}

/**
 * Writes every send queued for one relayer in one store transaction, nonces handed out in queue order. The signatures
 * are made before that transaction, with the nonces the relayer's row says come next, so a remote signer's round
 * trip never holds the row lock (nor, on SQLite, the store's one write lock). In the transaction, under the row's
 * lock, the nonces are checked to be still free: another instance or the check job that moved them makes the batch
 * sign again (the last attempt signs under the lock). A signature that fails fails its send alone, and frees its
 * nonce for the next send, so no gap is written. A hot relayer pays one lock and one commit per batch, not per send.
 */
export function createSendWriter(
  deps: SendWriterDeps,
): (items: PendingSend[]) => Promise<Array<TransactionRecord | Error>> {
  const { atomically, writer, families } = deps;
  const notFound = (relayerId: string) =>
    new NotFoundError('RELAYER_NOT_FOUND', { params: { id: relayerId }, reason: `relayer '${relayerId}' not found` });

  /** The batch's records (`out`), keys, events and jobs, its relayer's row locked, its nonce, clock and funds moved. */
  async function write(
    tx: Tx,
    row: RelayerRow,
    items: readonly PendingSend[],
    results: ReadonlyArray<Signed | Error>,
    out: Array<TransactionRecord | Error>,
  ): Promise<Array<TransactionRecord | Error>> {
    await claimKeys(tx, relayerIdOf(row.id), items, out);
    const family = families[row.network_type];
    const written: TransactionRecord[] = [];
    for (const [k, r] of results.entries()) {
      const record = out[k]!;
      if (r instanceof Error || record instanceof Error) continue;
      await writer.insert(tx, record, r.t.createdMs, r.t.b.nonce, row.network_type, splitLaneKey(row.id)[1]);
      if (family.scheduleSends) written.push(record);
      else await family.schedule(tx, record);
    }
    // Every written send has its next step scheduled: once for the batch where the family's jobs are per relayer.
    if (written.length > 0) await family.scheduleSends!(tx, row, written);
    return out;
  }

  /**
   * Checks the row, as locked, has the settings every send was prepared with (a pause too: the caller reads the row
   * again, and refuses the send there), and is not paused or disabled.
   */
  function checkLocked(locked: RelayerRow, items: readonly PendingSend[]): void {
    checkSettings(locked, items);
    refuseInactive(locked);
  }

  async function writeOnce(items: PendingSend[]): Promise<Array<TransactionRecord | Error>> {
    const relayerId = items[0]!.relayerId;
    let committed: RelayerRow | undefined;
    /** One statement moves the nonce and clock on from `from` (STALE if another writer did first) and locks the row. */
    const writeFrom = async (tx: Tx, from: RelayerRow, signed: Awaited<ReturnType<typeof signBatch>>) => {
      const out = signed.results.map((r) =>
        r instanceof Error ? r : writer.holding(newRecord(relayerId, r.t, r.fields), from.network_type),
      );
      // The funds the batch holds are reserved by the statement that takes the nonces.
      const { costs, total } = holds(out);
      const moved = await tx.relayers.advanceFrom(relayerId, from, signed.next, total > 0n ? total : undefined);
      if (!moved) return STALE;
      const { funds, ...row } = moved;
      checkLocked(row, items);
      admitFunds(items, costs, total, funds);
      await admitLane(tx, relayerId, items, out);
      committed = row;
      return write(tx, row, items, signed.results, out);
    };
    let written: Array<TransactionRecord | Error> | typeof STALE = STALE;
    for (let attempt = 0; attempt < UNLOCKED_ATTEMPTS && written === STALE; attempt++) {
      const read = await (attempt === 0 ? deps.rows.get(relayerId) : deps.rows.read(relayerId));
      if (!read) throw notFound(relayerId);
      refuseInactive(read);
      const signed = await signBatch(read, items);
      written = await atomically((tx) => writeFrom(tx, read, signed));
    }
    if (written === STALE) {
      // Another writer kept moving the nonce: signed under the row's lock, where it cannot move.
      written = await atomically(async (tx) => {
        const locked = await tx.relayers.getForUpdate(relayerId);
        if (!locked) throw notFound(relayerId);
        checkLocked(locked, items);
        const out = await writeFrom(tx, locked, await signBatch(locked, items));
        if (out === STALE)
          throw new AppError('INTERNAL', { reason: `relayer '${relayerId}' nonce moved under another writer; retry` });
        return out;
      });
    }
    // The next batch of this relayer signs from here without a read (the row lock checks it is still so).
    if (committed) deps.rows.put(committed);
    return written;
  }

  // Sends that leave the batch (a key another request took, settings changed) get their own error; the rest are
  // signed again.
  return async (items) => {
    const out: Array<TransactionRecord | Error> = new Array(items.length);
    let left = items.map((_, i) => i);
    for (;;) {
      try {
        const written = await writeOnce(left.map((i) => items[i]!));
        left.forEach((i, k) => (out[i] = written[k]!));
        return out;
      } catch (err) {
        if (!(err instanceof LeaveBatch)) throw err;
        for (const k of err.positions) out[left[k]!] = err.errorOf(items[left[k]!]!);
        left = left.filter((_, k) => !err.positions.includes(k));
        if (left.length === 0) return out;
      }
    }
  };
}
