// SQLite: the lanes of key pools (issue 44, domain/relayers/lanes.ts). The relayer repository's nonce methods are
// wrapped so that a lane key reads and moves its lane's row; SQLite's one write lock orders every writer.
import type { Db } from './db.ts';
import type { LaneRow, LaneState, LanesStore, RelayersRepo } from '../../domain/relayers/ports.ts';
import { isLaneKey, laneView, splitLaneKey } from '../../domain/relayers/lanes.ts';
import type { SyncOf } from './sync-ops.ts';
import { createFundsOps } from './transactions-repo.ts';

const LANE_COLUMNS =
  'relayer_id, address, signer_id, position, max_pending, next_nonce, last_created_ms, state, state_reason';

export function withLanes(db: Db, base: Omit<SyncOf<RelayersRepo>, keyof LanesStore>): SyncOf<RelayersRepo> {
  const all = db.prepare<[string], LaneRow>(
    `SELECT ${LANE_COLUMNS} FROM relayer_lanes WHERE relayer_id = ? ORDER BY position`,
  );
  const one = db.prepare<[string, string], LaneRow>(
    `SELECT ${LANE_COLUMNS} FROM relayer_lanes WHERE relayer_id = ? AND address = ?`,
  );
  const save = db.prepare(`
    INSERT INTO relayer_lanes (relayer_id, address, signer_id, position, max_pending) VALUES (@relayer_id, @address, @signer_id, @position, @max_pending)
    ON CONFLICT (relayer_id, address) DO UPDATE SET signer_id = excluded.signer_id, position = excluded.position, max_pending = excluded.max_pending`);
  const dropOthers = db.prepare(
    'DELETE FROM relayer_lanes WHERE relayer_id = ? AND address NOT IN (SELECT value FROM json_each(?))',
  );
  const setMax = db.prepare('UPDATE relayer_lanes SET max_pending = ? WHERE relayer_id = ?');
  const setState = db.prepare(
    'UPDATE relayer_lanes SET state = ?, state_reason = ? WHERE relayer_id = ? AND address = ? AND (state IS NOT ? OR state_reason IS NOT ?)',
  );
  const advance = db.prepare(
    'UPDATE relayer_lanes SET next_nonce = ?, last_created_ms = ? WHERE relayer_id = ? AND address = ? AND next_nonce = ?',
  );
  const advanceFrom = db.prepare<[number, number, string, string, number, number], LaneRow>(
    `UPDATE relayer_lanes SET next_nonce = ?, last_created_ms = ? WHERE relayer_id = ? AND address = ? AND next_nonce = ? AND last_created_ms = ? RETURNING ${LANE_COLUMNS}`,
  );
  // The same condition as the partial index transactions_unfinished (its words: see transactions-repo.ts).
  const pending = db.prepare<[string], { lane: string; n: number }>(`
    SELECT lane, COUNT(*) AS n FROM transactions
    WHERE relayer_id = ? AND nonce IS NOT NULL AND (status = 'pending' OR status = 'sent' OR status = 'submitted')
    GROUP BY lane`);
  const { moveFunds, funds } = createFundsOps(db);
  const lane = (key: string) => {
    const [relayerId, address] = splitLaneKey(key);
    const relayer = base.get(relayerId);
    const row = relayer && one.get(relayerId, address);
    return relayer && row ? laneView(relayer, row) : undefined;
  };
  return {
    ...base,
    get: (id) => (isLaneKey(id) ? lane(id) : base.get(id)),
    getForUpdate: (id) => (isLaneKey(id) ? lane(id) : base.getForUpdate(id)),
    advance(id, expectedNonce, nextNonce, lastCreatedMs) {
      if (!isLaneKey(id)) return base.advance(id, expectedNonce, nextNonce, lastCreatedMs);
      const [relayerId, address] = splitLaneKey(id);
      return advance.run(nextNonce, lastCreatedMs, relayerId, address, expectedNonce).changes === 1;
    },
    advanceFrom(id, from, to, reserve) {
      if (!isLaneKey(id)) return base.advanceFrom(id, from, to, reserve);
      const [relayerId, address] = splitLaneKey(id);
      const relayer = base.get(relayerId);
      if (!relayer) return undefined;
      const row = advanceFrom.get(
        to.next_nonce,
        to.last_created_ms,
        relayerId,
        address,
        from.next_nonce,
        from.last_created_ms,
      );
      if (!row) return undefined;
      const view = laneView(relayer, row);
      if (reserve === undefined) return view;
      moveFunds(id, reserve, 0n);
      return { ...view, funds: funds(id) };
    },
    lanes: (relayerId) => all.all(relayerId),
    // Its own SQLite transaction (a savepoint inside the caller's).
    saveLanes: db.transaction((relayerId: string, lanes: Parameters<SyncOf<RelayersRepo>['saveLanes']>[1]) => {
      dropOthers.run(relayerId, JSON.stringify(lanes.map((l) => l.address)));
      for (const l of lanes) save.run(l);
    }),
    setMaxPending: (relayerId, maxPending) => void setMax.run(maxPending, relayerId),
    setLaneState: (relayerId, address, state: LaneState, reason) =>
      setState.run(state, reason, relayerId, address, state, reason).changes === 1,
    lanePending: (relayerId) => Object.fromEntries(pending.all(relayerId).map((r) => [r.lane, r.n])),
  };
}
