// Key pools of the families without nonces (issue 44): Solana fee payers and Stellar channel accounts. Their sends take
// no nonce, so a lane's pending count is its non-final transactions by `from` (the lane's address), and no check job
// judges their lanes: a lane refused at the send for its funds (under min_balance) or its signer leaves the routing
// there (state written with a `relayer_lane_state` event), and comes back by itself: a later send looks at it again
// (its balance read afresh, a failed signer offered again after a while) and writes it `active` when it clears.
import { AppError, ValidationError } from '../../errors.ts';
import type { Log } from '../log.ts';
import type { Store } from '../ports.ts';
import { FINAL_STATUSES, type TransactionStatus } from '../types.ts';
import type { RelayerEvents } from '../webhooks/outbox.ts';
import type { LaneRow, LaneState, RelayerRow, TransactionsRepo } from './ports.ts';
import { minBalance } from './policies.ts';
import { laneView } from './lanes.ts';
import { RELAYER_LANE_STATE } from '../transactions/evm/lane-health.ts';

const UNFINISHED: readonly TransactionStatus[] = ['pending', 'sent', 'submitted', 'mined'];
/** A lane's transactions counted per status, at most (a pool lane holds a few in flight). */
const COUNT_UP_TO = 1_000;
/** A lane out of the routing is looked at again at most this often (its balance read, its signer offered again). */
const LOOK_AGAIN_MS = 3_000;

/** Non-final transactions per lane ('' the first key's), by their `from`. */
export async function pendingByFrom(
  transactions: Pick<TransactionsRepo, 'list'>,
  relayerId: string,
  lanes: readonly LaneRow[],
): Promise<Record<string, number>> {
  const laneOf = new Map(lanes.map((l) => [l.address, l.position === 0 ? '' : l.address]));
  const pending: Record<string, number> = {};
  const lists = await Promise.all(UNFINISHED.map((s) => transactions.list(relayerId, s, COUNT_UP_TO, 0)));
  for (const r of lists.flat()) {
    if (FINAL_STATUSES.has(r.status)) continue;
    const lane = laneOf.get(r.from as string) ?? '';
    pending[lane] = (pending[lane] ?? 0) + 1;
  }
  return pending;
}

/** Why a family lane refused a send: its funds (Solana's gate: under min_balance) or its signer; null otherwise. */
export function familyRefusal(err: unknown): { state: LaneState; text: string; funds: boolean } | null {
  if (err instanceof ValidationError && (err as { kind?: string }).kind === 'INSUFFICIENT_FUNDS')
    return { state: 'low_balance', text: err.reason, funds: true };
  if (err instanceof AppError && err.code === 'SIGNER_UNAVAILABLE')
    return { state: 'signer_failing', text: 'its signer did not sign', funds: false };
  return null;
}

export interface FamilyLaneDeps {
  store: Pick<Store, 'atomically'>;
  events?: RelayerEvents | undefined;
  logger?: Log | undefined;
  /** The lane's balance (smallest unit) as its network says now. */
  balance(row: RelayerRow): Promise<bigint>;
  now?: () => number;
}

export function createFamilyLanes(deps: FamilyLaneDeps) {
  const now = deps.now ?? Date.now;
  const lookedAt = new Map<string, number>();
  const keyOf = (lane: LaneRow) => `${lane.relayer_id}#${lane.address}`;

  async function write(relayer: RelayerRow, lane: LaneRow, state: LaneState, reason: string | null): Promise<void> {
    if (lane.state === state) return;
    await deps.store.atomically(async (tx) => {
      if (!(await tx.relayers.setLaneState(relayer.id, lane.address, state, reason))) return;
      const payload = {
        payload_type: RELAYER_LANE_STATE,
        relayer_id: relayer.id,
        address: lane.address,
        signer_id: lane.signer_id,
        state,
        previous_state: lane.state,
        reason,
        in_routing: state === 'active',
      };
      await deps.events?.relayerEvent(tx, relayer.id, RELAYER_LANE_STATE, payload);
      const log = { relayerId: relayer.id, lane: lane.address, state, previous: lane.state, reason };
      tx.afterCommit(() =>
        deps.logger?.info(log, state === 'active' ? 'lane back in the routing' : 'lane out of the routing'),
      );
    });
    lane.state = state;
    lane.state_reason = reason;
  }

  /** Whether the lane is clear again: its balance keeps min_balance (and is not empty), or its signer was out a while. */
  async function clear(relayer: RelayerRow, lane: LaneRow): Promise<boolean> {
    if (lane.state === 'signer_failing') return true;
    const balance = await deps.balance(laneView(relayer, lane));
    return balance > 0n && balance > minBalance(relayer.policies);
  }

  return {
    /** The lane refused a send: out of the routing, saying why. */
    async refused(relayer: RelayerRow, lane: LaneRow, why: { state: LaneState; text: string }): Promise<void> {
      lookedAt.set(keyOf(lane), now());
      await write(relayer, lane, why.state, why.text);
    },
    /** The lane took a send: in the routing (again). */
    async took(relayer: RelayerRow, lane: LaneRow): Promise<void> {
      await write(relayer, lane, 'active', null);
    },
    /** Lanes out of the routing, looked at again (not waited for by the send): back in when they clear. */
    lookAgain(relayer: RelayerRow, lanes: readonly LaneRow[]): void {
      for (const lane of lanes) {
        if (lane.state === 'active' || now() - (lookedAt.get(keyOf(lane)) ?? 0) < LOOK_AGAIN_MS) continue;
        lookedAt.set(keyOf(lane), now());
        clear(relayer, lane)
          .then((ok) => (ok ? write(relayer, lane, 'active', null) : undefined))
          .catch((err) => deps.logger?.warn({ relayerId: relayer.id, lane: lane.address, err }, 'lane not looked at'));
      }
    },
  };
}

export type FamilyLanes = ReturnType<typeof createFamilyLanes>;
