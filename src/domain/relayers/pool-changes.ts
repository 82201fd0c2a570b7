// PATCH /api/v1/relayers/{id} on a key pool's keys (issue 44): `signer_ids` adds and drops keys, `funding_signer_id`
// names, changes or (null) drops the funding key, under the rules of a config start (service.ts): the first key
// cannot change (its transactions are the relayer row's lane), and a key with transactions in flight cannot be
// dropped (nothing would track or sign them). Kept keys keep their lane: its nonce, its ledger, its transactions.
import { ValidationError } from '../../errors.ts';
import type { Signer } from '../signers/ports.ts';
import type { LaneRow, RelayerRow } from './ports.ts';
import { laneKey } from './lanes.ts';
import { laneRowsOf, resolvePool, signersOf } from './pools.ts';
import { checkFunding, fundingLaneRow, isFundingLane, resolveFunder } from './funding.ts';

export interface PoolPatch {
  signer_ids?: string[] | undefined;
  funding_signer_id?: string | null | undefined;
  policies?: Record<string, unknown> | null | undefined;
}

export interface PoolChangeDeps {
  row: RelayerRow;
  /** Its lanes as stored (none without a pool). */
  stored: readonly LaneRow[];
  pending(): Promise<Record<string, number>>;
  resolve(signerId: string): Promise<Signer>;
  /** Refuses a signer another relayer of the network uses. */
  checkFree(signerId: string): Promise<void>;
}

type NewLane = ReturnType<typeof fundingLaneRow>;

/** The lanes the patch leaves and each lane's signer by its key; null when it changes no key (its policies checked). */
export async function changePool(
  deps: PoolChangeDeps,
  patch: PoolPatch,
  maxPending?: number,
): Promise<{ lanes: NewLane[]; signers: Map<string, Signer> } | null> {
  const { row, stored } = deps;
  const routing = stored.filter((l) => !isFundingLane(l));
  const currentIds = routing.length > 0 ? routing.map((l) => l.signer_id) : [row.signer_id];
  const currentFunder = stored.find(isFundingLane)?.signer_id ?? null;
  const ids = patch.signer_ids ?? currentIds;
  const funder = patch.funding_signer_id === undefined ? currentFunder : patch.funding_signer_id;
  if (patch.signer_ids) {
    signersOf({ signer_ids: ids }, row.network_type);
    if (ids[0] !== row.signer_id)
      throw new ValidationError(
        `'signer_ids.0': the first key cannot change: it must stay '${row.signer_id}' (the relayer's signer_id, whose transactions are the relayer row's lane)`,
      );
  }
  checkFunding(
    { funding_signer_id: funder, policies: patch.policies === undefined ? row.policies : patch.policies },
    ids,
  );
  const same = ids.length === currentIds.length && ids.every((id, k) => id === currentIds[k]);
  if (same && funder === currentFunder) return null;

  const pool = await resolvePool(ids, deps.resolve, '', row.network_type);
  const funding = funder ? await resolveFunder(funder, deps.resolve, pool) : undefined;
  const known = new Set([...currentIds, currentFunder]);
  for (const id of [...ids, funder]) if (id && !known.has(id)) await deps.checkFree(id);

  const lanes: NewLane[] = laneRowsOf(row.id, ids, pool, maxPending ?? routing[0]?.max_pending);
  if (funding && funder) lanes.push(fundingLaneRow(row.id, funder, funding));
  await refuseDroppedInFlight(stored, lanes, await deps.pending());
  const keys = funding ? [...pool, funding] : pool;
  const signers = new Map(lanes.map((l, k) => [laneKey(row.id, l.address, l.position), keys[k]!] as const));
  return { lanes, signers };
}

/** A dropped key's transactions in flight would be tracked and signed by nothing: refused, naming the key. */
async function refuseDroppedInFlight(
  stored: readonly LaneRow[],
  next: readonly NewLane[],
  pending: Record<string, number>,
): Promise<void> {
  for (const lane of stored) {
    // The first key's transactions are the relayer row's lane: they stay tracked with or without a pool.
    if (lane.position === 0 || next.some((n) => n.address === lane.address)) continue;
    const inFlight = pending[lane.address] ?? 0;
    if (inFlight === 0) continue;
    const field = isFundingLane(lane) ? 'funding_signer_id' : 'signer_ids';
    throw new ValidationError(
      `'${field}': key ${lane.address} (signer '${lane.signer_id}') has ${inFlight} transaction(s) in flight; it cannot be dropped until they are final`,
    );
  }
}
