// A send of a Solana or Stellar key pool (issue 44): routed as an EVM pool's (relayers/lane-routing.ts: the lane with
// the fewest pending first), but by the pending counts of relayers/family-lanes.ts, and within what the send allows
// (RelayFamily.laneNeeds): a transaction that names a pool key as a signer (a client-built Solana transaction's fee
// payer) goes to that key's lane, one naming signers but no pool key to the first key as without a pool; a Stellar
// send built from operations goes to a channel account (never the fund account, the first key), any other Stellar send
// to the fund account as without a pool. A lane refused for its funds or its signer leaves the routing
// (family-lanes.ts) and the send tries the next one.
import type { IdempotencyClaimOf } from '../idempotency/sends.ts';
import type { LaneRow, RelayerRow } from '../relayers/ports.ts';
import type { RelayerService } from '../relayers/service.ts';
import { createLaneRouter, noLaneError, type LaneCandidate, type LaneRefusal } from '../relayers/lane-routing.ts';
import { familyRefusal, type FamilyLanes } from '../relayers/family-lanes.ts';
import type { NetworkType, TransactionRecord } from '../types.ts';
import type { RelayFamily } from './family.ts';

export interface FamilyPoolSendDeps {
  relayers: Pick<RelayerService, 'isPool' | 'lanes'>;
  families: Record<NetworkType, RelayFamily>;
  lanes?: { pending(relayerId: string): Promise<Record<string, number>>; health: FamilyLanes } | undefined;
  sendOn(relayer: RelayerRow, body: unknown, idempotency?: IdempotencyClaimOf): Promise<TransactionRecord>;
  laneSent?: ((relayerId: string, address: string) => void) | undefined;
}

export function createFamilyPoolSends(deps: FamilyPoolSendDeps) {
  const { relayers, families, sendOn } = deps;
  /** The row each pool's last send came with: a lane looked at again is judged by its policies. */
  const latest = new Map<string, RelayerRow>();
  const router = createLaneRouter({
    isPool: relayers.isPool,
    lanes: async (relayerId) => {
      const lanes = await relayers.lanes(relayerId);
      const relayer = latest.get(relayerId);
      if (relayer) deps.lanes?.health.lookAgain(relayer, lanes);
      return lanes;
    },
    lanePending: (relayerId) => deps.lanes!.pending(relayerId),
  });

  /** The lanes this send may go to, best first, and why the others cannot take it; null: the first key's, as without a pool. */
  async function choose(relayer: RelayerRow, body: unknown) {
    latest.set(relayer.id, relayer);
    const needs = families[relayer.network_type].laneNeeds?.(relayer, body) ?? { signers: [], channel: false };
    if (needs.signers.includes(relayer.address)) return null;
    if (relayer.network_type === 'stellar' && !needs.channel && needs.signers.length === 0) return null;
    // A pool key the send names as a signer takes it; naming none of them, the first key does (as without a pool);
    // naming no signer, any lane (of a Stellar pool: any channel account).
    let named = false;
    const only = (lane: LaneRow, lanes: readonly LaneRow[]) => {
      const pinned = lanes.find((l) => l.position > 0 && needs.signers.includes(l.address));
      if (pinned) named = true;
      if (pinned || needs.signers.length > 0) return lane === pinned;
      return relayer.network_type !== 'stellar' || lane.position > 0;
    };
    const routed = await router.candidates(relayer, only);
    return needs.signers.length > 0 && !named ? null : routed;
  }

  async function tryLane(relayer: RelayerRow, c: LaneCandidate, body: unknown, idempotency?: IdempotencyClaimOf) {
    const record = await sendOn(c.row, body, idempotency);
    deps.laneSent?.(relayer.id, c.lane.address);
    if (c.lane.state !== 'active') await deps.lanes?.health.took(relayer, c.lane);
    return record;
  }

  return async (relayer: RelayerRow, body: unknown, idempotency?: IdempotencyClaimOf): Promise<TransactionRecord> => {
    const lanes = deps.lanes && relayers.isPool(relayer.id) ? await choose(relayer, body) : null;
    if (!lanes) return sendOn(relayer, body, idempotency);
    const refusals: LaneRefusal[] = [...lanes.skipped];
    for (const c of lanes.offered) {
      try {
        return await tryLane(relayer, c, body, idempotency);
      } catch (err) {
        const why = familyRefusal(err);
        if (!why) throw err;
        router.refused(c);
        await deps.lanes!.health.refused(relayer, c.lane, why);
        refusals.push({ address: c.lane.address, state: c.lane.state, why: why.text, funds: why.funds });
      }
    }
    throw noLaneError(relayer.id, refusals);
  };
}
