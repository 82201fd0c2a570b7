// The write of a relayer's queued sends: one store transaction per batch, nonces taken in queue order from the
// relayer's row read for update, the batch's signatures awaited together, then the records, events and jobs.
import { randomUUID } from 'node:crypto';
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Atomically } from '../ports.ts';
import type { RelayerRow } from '../relayers/ports.ts';
import type { NetworkType, TransactionRecord } from '../types.ts';
import type { PreparedSend, RelayFamily } from './family.ts';
import type { RecordWriter } from './record-writer.ts';

/** A send waiting in its relayer's queue: its network reads are done, its nonce is not yet taken. */
export interface PendingSend {
  relayerId: string;
  prepared: PreparedSend;
}

type Built = ReturnType<PreparedSend['build']>;
interface Taken {
  b: Built;
  createdMs: number;
}

export function refusePaused(relayer: RelayerRow): void {
  if (relayer.paused) throw new ValidationError(`relayer '${relayer.id}' is paused; unpause it to send or replace transactions`);
}

/** Each send's nonce and clock, in queue order, from the locked row; a send whose build throws gets its Error (no nonce). */
function takeNonces(row: RelayerRow, items: readonly PendingSend[]): { taken: Array<Taken | Error>; next: RelayerRow } {
  let next = row;
  const taken = items.map((item): Taken | Error => {
    let b: Built;
    try {
      b = item.prepared.build(next);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    // created_at strictly increases per relayer, so newest-first listing has a stable order.
    const createdMs = Math.max(Date.now(), next.last_created_ms + 1);
    next = { ...next, next_nonce: b.nextNonce, last_created_ms: createdMs };
    return { b, createdMs };
  });
  return { taken, next };
}

function newRecord(row: RelayerRow, t: Taken, fields: Record<string, unknown>): TransactionRecord {
  return {
    id: randomUUID(),
    relayer_id: row.id,
    status: t.b.status,
    status_reason: null,
    created_at: new Date(t.createdMs).toISOString(),
    sent_at: null,
    confirmed_at: null,
    ...fields,
  };
}

/**
 * Writes every send queued for one relayer in one store transaction: the nonces are read under the relayer row's
 * lock there (another instance sending for this relayer waits for this commit instead of taking the same nonces)
 * and handed out in queue order, so a hot relayer pays one lock and one commit per batch, not per send.
 */
export function createSendWriter(deps: { atomically: Atomically; writer: RecordWriter; families: Record<NetworkType, RelayFamily> }): (items: PendingSend[]) => Promise<Array<TransactionRecord | Error>> {
  const { atomically, writer, families } = deps;
  return async (items) => {
    const relayerId = items[0]!.relayerId;
    return atomically(async (tx) => {
      const row = await tx.relayers.getForUpdate(relayerId);
      if (!row) throw new NotFoundError('RELAYER_NOT_FOUND', { params: { id: relayerId }, reason: `relayer '${relayerId}' not found` });
      refusePaused(row);
      const family = families[row.network_type];
      const { taken, next } = takeNonces(row, items);
      // Every nonce is taken before any signature is awaited: the batch's signatures are awaited together.
      const fields = await Promise.all(taken.map((t) => (t instanceof Error ? null : t.b.fields)));
      const built = taken.map((t, i) => (t instanceof Error ? t : { record: newRecord(row, t, fields[i]!), createdMs: t.createdMs, nonce: t.b.nonce }));
      if (!(await tx.relayers.advance(row.id, row.next_nonce, next.next_nonce, next.last_created_ms))) {
        throw new AppError('INTERNAL', { reason: `relayer '${row.id}' nonce moved under another writer; retry` });
      }
      for (const b of built) {
        if (b instanceof Error) continue;
        await writer.insert(tx, b.record, b.createdMs, b.nonce, row.network_type);
        await family.schedule(tx, b.record);
      }
      return built.map((b) => (b instanceof Error ? b : b.record));
    });
  };
}
