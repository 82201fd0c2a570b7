// PostgreSQL: the lanes of key pools (issue 44, domain/relayers/lanes.ts), as in src/store/sqlite/lanes-repo.ts. A
// lane's nonce moves by one UPDATE that also locks its row until the transaction ends (FOR UPDATE for a read), so two
// instances never take one lane's nonce twice; its funds ledger row is read there and moved at the commit, as the
// relayer's own (relayers-repo.ts, write-buffer.ts).
import { sql, type Kysely } from 'kysely';
import type { LaneRow, LanesStore, RelayersRepo } from '../../domain/relayers/ports.ts';
import { isLaneKey, laneView, splitLaneKey } from '../../domain/relayers/lanes.ts';
import type { Database } from './schema.ts';
import type { ReserveFunds } from './relayers-repo.ts';

const LANE_COLUMNS = [
  'relayer_id',
  'address',
  'signer_id',
  'position',
  'max_pending',
  'next_nonce',
  'last_created_ms',
  'state',
  'state_reason',
] as const;

export function withLanes(
  q: Kysely<Database>,
  base: Omit<RelayersRepo, keyof LanesStore>,
  reserveFunds: ReserveFunds,
): RelayersRepo {
  const lanes = () => q.selectFrom('relayer_lanes').select(LANE_COLUMNS);
  const lane = async (key: string, lock: boolean) => {
    const [relayerId, address] = splitLaneKey(key);
    const relayer = await base.get(relayerId);
    if (!relayer) return undefined;
    const query = lanes().where('relayer_id', '=', relayerId).where('address', '=', address);
    const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
    return row && laneView(relayer, row as LaneRow);
  };
  return {
    ...base,
    get: (id) => (isLaneKey(id) ? lane(id, false) : base.get(id)),
    getForUpdate: (id) => (isLaneKey(id) ? lane(id, true) : base.getForUpdate(id)),
    async advance(id, expectedNonce, nextNonce, lastCreatedMs) {
      if (!isLaneKey(id)) return base.advance(id, expectedNonce, nextNonce, lastCreatedMs);
      const [relayerId, address] = splitLaneKey(id);
      const r = await q
        .updateTable('relayer_lanes')
        .set({ next_nonce: nextNonce, last_created_ms: lastCreatedMs })
        .where('relayer_id', '=', relayerId)
        .where('address', '=', address)
        .where('next_nonce', '=', expectedNonce)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    async advanceFrom(id, from, to, reserve) {
      if (!isLaneKey(id)) return base.advanceFrom(id, from, to, reserve);
      const [relayerId, address] = splitLaneKey(id);
      const relayer = await base.get(relayerId);
      if (!relayer) return undefined;
      const row = await q
        .updateTable('relayer_lanes')
        .set({ next_nonce: to.next_nonce, last_created_ms: to.last_created_ms })
        .where('relayer_id', '=', relayerId)
        .where('address', '=', address)
        .where('next_nonce', '=', from.next_nonce)
        .where('last_created_ms', '=', from.last_created_ms)
        .returning(LANE_COLUMNS)
        .executeTakeFirst();
      if (!row) return undefined;
      const view = laneView(relayer, row as LaneRow);
      if (reserve === undefined) return view;
      // The lane's ledger row (its key), read unlocked; the reserve is written at the commit, guarded by this read.
      const read = (
        await sql<{
          reserved: string;
          released: string;
        }>`SELECT reserved::text, released::text FROM relayer_funds WHERE relayer_id = ${id}`.execute(q)
      ).rows[0];
      const reserved = BigInt(read?.reserved ?? 0);
      const released = BigInt(read?.released ?? 0);
      await reserveFunds(id, reserve, reserved - released);
      return { ...view, funds: { reserved: reserved + reserve, released } };
    },
    lanes: async (relayerId) =>
      (await lanes().where('relayer_id', '=', relayerId).orderBy('position').execute()) as LaneRow[],
    async saveLanes(relayerId, rows) {
      const kept = rows.map((l) => l.address);
      let drop = q.deleteFrom('relayer_lanes').where('relayer_id', '=', relayerId);
      if (kept.length > 0) drop = drop.where('address', 'not in', kept);
      await drop.execute();
      if (rows.length === 0) return;
      await q
        .insertInto('relayer_lanes')
        .values(
          rows.map((l) => ({
            relayer_id: l.relayer_id,
            address: l.address,
            signer_id: l.signer_id,
            position: l.position,
            max_pending: l.max_pending,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['relayer_id', 'address']).doUpdateSet((eb) => ({
            signer_id: eb.ref('excluded.signer_id'),
            position: eb.ref('excluded.position'),
            max_pending: eb.ref('excluded.max_pending'),
          })),
        )
        .execute();
    },
    async setMaxPending(relayerId, maxPending) {
      await q
        .updateTable('relayer_lanes')
        .set({ max_pending: maxPending })
        .where('relayer_id', '=', relayerId)
        .execute();
    },
    async setLaneState(relayerId, address, state, reason) {
      const r = await q
        .updateTable('relayer_lanes')
        .set({ state, state_reason: reason })
        .where('relayer_id', '=', relayerId)
        .where('address', '=', address)
        .where((eb) => eb.or([eb('state', 'is distinct from', state), eb('state_reason', 'is distinct from', reason)]))
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    async lanePending(relayerId) {
      const rows = await q
        .selectFrom('transactions')
        .select(['lane', (eb) => eb.fn.countAll<string>().as('n')])
        .where('relayer_id', '=', relayerId)
        .where('nonce', 'is not', null)
        .where('status', 'in', ['pending', 'sent', 'submitted'])
        .groupBy('lane')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.lane, Number(r.n)]));
    },
  };
}
