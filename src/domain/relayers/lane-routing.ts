// Which lane of a key pool takes a send (issue 44): the healthy lane with the most room first (fewest pending of its
// max_pending_per_key), then the others that are in the routing; lanes the check took out of the routing (lanes.ts
// LaneState) are not offered, except those under their balance (tried last: a send that finds the key funded again
// brings it back before the next check run). The choice is a proposal: the send writer takes the lane's nonce under
// its row lock and, in the same store transaction, checks its in-flight limit again (another instance may have
// filled it), and a refused send tries the next lane.
import { AppError, InsufficientBalanceError } from '../../errors.ts';
import type { LaneRow, RelayerRow } from './ports.ts';
import { laneKey, laneView } from './lanes.ts';
import { isFundingLane } from './funding.ts';

export interface LaneCandidate {
  row: RelayerRow;
  lane: LaneRow;
  /** Its in-flight limit, checked under its lock. */
  maxPending: number;
}

/** Why a lane did not take a send, for the answer when none did. */
export interface LaneRefusal {
  address: string;
  state: string;
  why: string;
  /** Refused for its funds (all of them so: INSUFFICIENT_BALANCE rather than NO_LANE_AVAILABLE). */
  funds: boolean;
}

/** A lane's in-flight limit was reached when its nonce was taken (send-writer.ts): the send tries another lane. */
export class LaneFullError extends Error {
  constructor(key: string, max: number) {
    super(`lane '${key}' has ${max} transactions pending (max_pending_per_key)`);
  }
}

/** A lane refused recently (its balance, its signer) is offered last for this long. */
const REFUSED_FOR_MS = 2_000;
/** Lanes and their pending counts are read at most this often per relayer; sends routed since are counted in. */
const READ_EVERY_MS = 250;

export interface LaneRouter {
  /**
   * The lanes to try, best first, and the refusals of those not offered; null for a relayer without a pool. `only`:
   * the lanes the send may take at all (a Solana or Stellar send's, transactions/family-pool-sends.ts).
   */
  candidates(
    relayer: RelayerRow,
    only?: (lane: LaneRow, lanes: readonly LaneRow[]) => boolean,
  ): Promise<{ offered: LaneCandidate[]; skipped: LaneRefusal[] } | null>;
  /** The lane refused a send for its funds or its signer: offered last for a while. */
  refused(candidate: LaneCandidate): void;
}

interface Snapshot {
  at: number;
  lanes: LaneRow[];
  pending: Record<string, number>;
}

export interface LaneReads {
  /** Known without a read (the relayer service holds every pool's lanes' keys): a relayer without one costs nothing. */
  isPool(relayerId: string): boolean;
  lanes(relayerId: string): Promise<LaneRow[]>;
  lanePending(relayerId: string): Promise<Record<string, number>>;
}

export function createLaneRouter(read: LaneReads, now: () => number = Date.now): LaneRouter {
  const snapshots = new Map<string, Promise<Snapshot>>();
  const refusedAt = new Map<string, number>();
  /** Per relayer: lanes with as much room take turns (idle keys share the sends instead of the first taking all). */
  const turns = new Map<string, number>();
  const snapshot = async (relayerId: string): Promise<Snapshot> => {
    const held = snapshots.get(relayerId);
    if (held) {
      const s = await held;
      if (now() - s.at < READ_EVERY_MS) return s;
      if (snapshots.get(relayerId) !== held) return snapshot(relayerId);
    }
    const next = Promise.all([read.lanes(relayerId), read.lanePending(relayerId)]).then(([lanes, pending]) => ({
      at: now(),
      lanes,
      pending,
    }));
    snapshots.set(relayerId, next);
    next.catch(() => snapshots.get(relayerId) === next && snapshots.delete(relayerId));
    return next;
  };
  const laneOf = (lane: LaneRow) => (lane.position === 0 ? '' : lane.address);
  return {
    async candidates(relayer, only) {
      if (!read.isPool(relayer.id)) return null;
      const s = await snapshot(relayer.id);
      // A funding key (funding.ts) never takes user sends.
      const lanes = s.lanes.filter((l) => !isFundingLane(l));
      if (lanes.length < 2) return null;
      const skipped: LaneRefusal[] = [];
      const healthy: Array<LaneCandidate & { pending: number }> = [];
      const refusedLately: Array<LaneCandidate & { pending: number }> = [];
      const low: Array<LaneCandidate & { pending: number }> = [];
      for (const lane of lanes) {
        if (only && !only(lane, lanes)) continue;
        const pending = s.pending[laneOf(lane)] ?? 0;
        const c = { row: laneView(relayer, lane), lane, maxPending: lane.max_pending, pending };
        if (pending >= lane.max_pending)
          skipped.push({
            address: lane.address,
            state: lane.state,
            why: `${pending} of ${lane.max_pending} pending (max_pending_per_key)`,
            funds: false,
          });
        else if (lane.state === 'low_balance') low.push(c);
        else if (lane.state !== 'active')
          skipped.push({
            address: lane.address,
            state: lane.state,
            why: lane.state_reason ?? lane.state,
            funds: false,
          });
        else if (now() - (refusedAt.get(c.row.id) ?? -Infinity) < REFUSED_FOR_MS) refusedLately.push(c);
        else healthy.push(c);
      }
      const turn = turns.get(relayer.id) ?? 0;
      turns.set(relayer.id, turn + 1);
      const n = lanes.length;
      const rank = (lane: LaneRow) => (((lane.position - turn) % n) + n) % n;
      const byRoom = (a: { pending: number; maxPending: number; lane: LaneRow }, b: typeof a) =>
        a.pending / a.maxPending - b.pending / b.maxPending || rank(a.lane) - rank(b.lane);
      const offered = [...healthy.sort(byRoom), ...refusedLately.sort(byRoom), ...low.sort(byRoom)];
      // Counted at once (sends that arrive together see it): until the next read, this send is the first lane's.
      if (offered[0]) s.pending[laneOf(offered[0].lane)] = (s.pending[laneOf(offered[0].lane)] ?? 0) + 1;
      return { offered, skipped };
    },
    refused(c) {
      refusedAt.set(laneKey(c.lane.relayer_id, c.lane.address, c.lane.position), now());
    },
  };
}

/** The answer when no lane took the send: why, lane by lane. */
export function noLaneError(relayerId: string, refusals: readonly LaneRefusal[]): AppError {
  const list = refusals.map((r) => `${r.address}: ${r.why}`).join('; ');
  if (refusals.length > 0 && refusals.every((r) => r.funds)) {
    return new InsufficientBalanceError(
      `Insufficient balance: no key of relayer '${relayerId}' can cover this transaction: ${list}`,
      { relayer: relayerId },
    );
  }
  return new AppError('NO_LANE_AVAILABLE', {
    reason: `no key of relayer '${relayerId}' can take this transaction now: ${list}`,
    headers: { 'Retry-After': '1' },
  });
}
