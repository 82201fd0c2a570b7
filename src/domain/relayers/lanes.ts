// Key pools (issue 44): a relayer with several signers sends through one lane per key. The first key's lane is the
// relayer row itself (key: the relayer's id); every other lane is named `<relayer id>#<address>` ("#" is never in a
// relayer id: ids match [A-Za-z0-9_-]). Store methods that take a relayer id take a lane key too, and then work on the
// lane: its nonce (relayer_lanes), its funds ledger row (relayer_funds, under the lane key), its transactions (lane
// column). The rest of the send and check paths see a lane as a relayer row whose id, signer, address and nonce are
// the lane's, so a pool reuses them unchanged.
import type { LaneRow, RelayerRow } from './ports.ts';

export type { LaneRow, LaneState, LanesStore } from './ports.ts';

export const DEFAULT_MAX_PENDING_PER_KEY = 16;
const SEP = '#';

export const laneKey = (relayerId: string, address: string, position: number): string =>
  position === 0 ? relayerId : `${relayerId}${SEP}${address}`;
export const isLaneKey = (id: string): boolean => id.includes(SEP);
/** The relayer id of a lane key (a relayer id as is). */
export const relayerIdOf = (id: string): string => {
  const at = id.indexOf(SEP);
  return at < 0 ? id : id.slice(0, at);
};
/** [relayer id, lane] of a key: lane '' for a relayer id (the first key's lane). */
export const splitLaneKey = (id: string): [string, string] => {
  const at = id.indexOf(SEP);
  return at < 0 ? [id, ''] : [id.slice(0, at), id.slice(at + 1)];
};

/** The relayer row as the lane sees it: the lane's key as id, its signer, address, nonce and clock. */
export function laneView(relayer: RelayerRow, lane: LaneRow): RelayerRow {
  if (lane.position === 0) return relayer;
  return {
    ...relayer,
    id: laneKey(relayer.id, lane.address, lane.position),
    signer_id: lane.signer_id,
    address: lane.address,
    next_nonce: lane.next_nonce,
    last_created_ms: lane.last_created_ms,
  };
}
