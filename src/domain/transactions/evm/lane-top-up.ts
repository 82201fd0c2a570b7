// Funding (issue 44, docs/transactions.md "Funding"): when the relayer's check reads a pool lane's balance under the
// pool's lane_min_balance, and no top-up of that lane is in flight, the pool's funding key sends it what brings it to
// lane_target_balance. The top-up is an ordinary transaction of the relayer, sent from the funding key's lane through
// the send path (its ledger reservation, its nonce, the check, the events), its record marked `lane_top_up`.
import type { Store } from '../../ports.ts';
import type { Log } from '../../log.ts';
import type { TransactionRecord } from '../../types.ts';
import type { LaneRow, RelayerRow } from '../../relayers/ports.ts';
import { laneKey } from '../../relayers/lanes.ts';
import { fundingLevels, isFundingLane } from '../../relayers/funding.ts';
import type { EvmBody } from './transaction.ts';

/** The check read `balance` of the relayer's lane: a top-up is sent when it is due. */
export type LaneFunds = (relayer: RelayerRow, lane: LaneRow, balance: bigint) => Promise<void>;

export interface LaneTopUpDeps {
  store: Pick<Store, 'repos'>;
  lanes(relayerId: string): Promise<LaneRow[]>;
  /** The address's balance as the node says now (wei). */
  balanceOf(relayer: RelayerRow, address: string): Promise<bigint>;
  send(lane: RelayerRow, body: EvmBody, fields: Record<string, unknown>): Promise<TransactionRecord>;
  logger: Log;
  /** A top-up was created (metrics). */
  toppedUp?: ((relayerId: string, network: string) => void) | undefined;
}

/** The lane a record tops up, lower-cased; undefined for any other transaction. */
const topUpOf = (record: TransactionRecord): string | undefined => {
  const lane = (record as { lane_top_up?: { lane?: unknown } }).lane_top_up?.lane;
  return typeof lane === 'string' ? lane.toLowerCase() : undefined;
};

/** Unfinished top-ups looked at: more than a pool has lanes. */
const IN_FLIGHT_WINDOW = 256;

export function createLaneTopUps(deps: LaneTopUpDeps): LaneFunds {
  const { store, logger } = deps;
  /** Lanes whose top-up this instance is sending now (the relayer's lanes are checked together). */
  const sending = new Set<string>();
  /** The last refusal said per lane: said once, not at every check run. */
  const said = new Map<string, string>();
  return async (relayer, lane, balance) => {
    const levels = fundingLevels(relayer.policies);
    if (isFundingLane(lane) || !levels || balance >= levels.min) return;
    const key = laneKey(relayer.id, lane.address, lane.position);
    if (sending.has(key)) return;
    sending.add(key);
    try {
      const funder = (await deps.lanes(relayer.id)).find(isFundingLane);
      const from = funder && (await store.repos.relayers.get(laneKey(relayer.id, funder.address, funder.position)));
      if (!from) return;
      const inFlight = await store.repos.transactions.listUnfinished(from.id, IN_FLIGHT_WINDOW);
      if (inFlight.some((s) => topUpOf(s.record) === lane.address.toLowerCase())) return;
      // Read after the top-ups in flight: one that became final since the check's read is counted in, not sent twice.
      const now = await deps.balanceOf(relayer, lane.address);
      if (now >= levels.min) return;
      const value = levels.target - now;
      const body: EvmBody = { to: lane.address, value: value.toString(), gas_limit: 21_000, speed: 'fast' };
      const record = await deps.send(from, body, { lane_top_up: { lane: lane.address } });
      said.delete(key);
      deps.toppedUp?.(relayer.id, relayer.network);
      logger.info(
        { relayerId: relayer.id, lane: lane.address, transactionId: record.id, value: value.toString() },
        'lane top-up sent: its balance is under lane_min_balance',
      );
    } catch (err) {
      const reason = (err as { reason?: string }).reason ?? (err as Error).message;
      if (said.get(key) !== reason)
        logger.warn(
          { relayerId: relayer.id, lane: lane.address, reason },
          'lane top-up not sent; tried again at the next check',
        );
      said.set(key, reason);
    } finally {
      sending.delete(key);
    }
  };
}
