// A key pool lane's state (issue 44), worked out after each of its check runs: out of the routing while a transaction
// of it waits at the fee cap, one has been pending longer than a threshold, its balance is under what its unmined
// sends hold plus min_balance (or empty), or its signer failed; back in by itself once that clears. Each change is
// written with a `relayer_lane_state` webhook event in one store transaction, logged, and told to the metrics. The
// lane's own transactions are moved on by the check meanwhile, whatever its state.
import type { LaneRow, LaneState, RelayerRow, StoredTransaction } from '../../relayers/ports.ts';
import type { NetworkConfig } from '../../../config/config.ts';
import { minBalance } from '../../relayers/policies.ts';
import { isWaitingAtCap } from './fee-cap-wait.ts';
import { asEvm } from './versions.ts';
import type { EvmCheckDeps } from './tick.ts';

export type { LaneObserver } from './tick.ts';

export const RELAYER_LANE_STATE = 'relayer_lane_state';
/** While a lane is out of the routing, its relayer's check runs at least this often (nothing else may be in flight). */
export const OUT_OF_ROUTING_CHECK_MS = 3_000;

/** A transaction unmined this long takes its lane out of the routing: 30 blocks, at least a minute. */
export const stuckAfterMs = (network: NetworkConfig): number =>
  Math.max(60_000, 30 * (network.average_blocktime_ms ?? 12_000));

interface Found {
  active: StoredTransaction[];
  signerFailed: boolean;
}

interface Judged {
  state: LaneState;
  reason: string | null;
}

/** The lane's state from its run and its funds. */
export function judgeLane(
  run: Found,
  funds: { balance: bigint | null; reserved: bigint; min: bigint },
  stuckMs: number,
  now: number,
): Judged {
  if (run.signerFailed)
    return {
      state: 'signer_failing',
      reason: 'its signer failed when the check signed for it; sends go to the other keys until it signs again',
    };
  const atCap = run.active.find((s) => isWaitingAtCap(s.record));
  if (atCap) return { state: 'fee_cap', reason: `transaction ${atCap.record.id} waits at the fee cap (gas_price_cap)` };
  const unmined = run.active.map((s) => asEvm(s.record)).filter((r) => r.status !== 'mined');
  const oldest = unmined.reduce<number | null>(
    (min, r) => Math.min(min ?? Infinity, Date.parse(r.sent_at ?? r.created_at)),
    null,
  );
  // The reason stays the same while it lasts: the state is written once, not at every run.
  if (oldest !== null && now - oldest > stuckMs)
    return { state: 'stuck', reason: `a transaction of it has been unmined for over ${stuckMs / 1000} s` };
  const { balance, reserved, min } = funds;
  if (balance !== null && (balance === 0n || balance < reserved + min)) {
    return {
      state: 'low_balance',
      reason: `balance ${balance} wei is under what its unmined transactions hold (${reserved} wei) plus min_balance (${min} wei)`,
    };
  }
  return { state: 'active', reason: null };
}

export function createLaneHealth(deps: EvmCheckDeps) {
  const { store, relayers, logger } = deps;
  return {
    /** After the lane's run (null: it failed, its state stays). */
    async update(relayer: RelayerRow, lane: LaneRow, row: RelayerRow, run: Found | null): Promise<LaneState> {
      if (!run) return lane.state;
      const [balance, ledger] = await Promise.all([
        relayers
          .chain(row)
          .balance(row.address as `0x${string}`)
          .catch(() => null),
        store.repos.transactions.funds(row.id),
      ]);
      const judged = judgeLane(
        run,
        { balance, reserved: ledger.reserved, min: minBalance(relayer.policies) },
        stuckAfterMs(relayers.network(relayer)),
        Date.now(),
      );
      deps.lanes?.lane(relayer.id, lane.address, { state: judged.state, balance, pending: run.active.length });
      // Under the pool's lane_min_balance: its funding key tops it up (lane-top-up.ts; it logs its own failures).
      if (balance !== null) await deps.laneFunds?.(relayer, lane, balance);
      // A send on it reads the node's balance afresh, not the one the send path held (up to 2 s old).
      if (judged.state === 'low_balance') deps.forgetFunds?.(row.id);
      if (judged.state === lane.state && judged.reason === lane.state_reason) return judged.state;
      await store.atomically(async (tx) => {
        if (!(await tx.relayers.setLaneState(relayer.id, lane.address, judged.state, judged.reason))) return;
        if (judged.state === lane.state) return;
        const payload = {
          payload_type: RELAYER_LANE_STATE,
          relayer_id: relayer.id,
          address: lane.address,
          signer_id: lane.signer_id,
          state: judged.state,
          previous_state: lane.state,
          reason: judged.reason,
          in_routing: judged.state === 'active',
        };
        await deps.relayerEvents?.relayerEvent(tx, relayer.id, RELAYER_LANE_STATE, payload);
        tx.afterCommit(() =>
          logger.info(
            {
              relayerId: relayer.id,
              lane: lane.address,
              state: judged.state,
              previous: lane.state,
              reason: judged.reason,
            },
            judged.state === 'active' ? 'lane back in the routing' : 'lane out of the routing',
          ),
        );
      });
      return judged.state;
    },
  };
}
