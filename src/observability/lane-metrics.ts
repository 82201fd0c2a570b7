// Key pool lanes (issue 44), per relayer and key: what is pending, the state the routing sees, the balance the check
// read, and the sends each took. Defined apart from metrics.ts's table; registered in the app's registry.
import { Counter, Gauge, type Registry } from 'prom-client';

export const LANE_STATES = ['active', 'fee_cap', 'stuck', 'low_balance', 'signer_failing'] as const;

export interface LaneMetrics {
  /** After each check run of the lane. */
  lane(relayerId: string, address: string, s: { state: string; balance: bigint | null; pending: number }): void;
  /** A send the lane took. */
  laneSent(relayerId: string, address: string): void;
  /** A top-up the pool's funding key sent to one of its lanes. */
  laneTopUp(relayerId: string, network: string): void;
}

export function createLaneMetrics(registry: Registry): LaneMetrics {
  const registers = [registry];
  const pending = new Gauge({
    name: 'relaybox_relayer_lane_pending',
    help: "A key pool lane's non-final transactions, at its last check run",
    labelNames: ['relayer', 'address'],
    registers,
  });
  const state = new Gauge({
    name: 'relaybox_relayer_lane_state',
    help: "A key pool lane's state: 1 for the one it is in (active: in the routing)",
    labelNames: ['relayer', 'address', 'state'],
    registers,
  });
  const balance = new Gauge({
    name: 'relaybox_relayer_lane_balance',
    help: "A key pool lane's balance in the chain's smallest unit (wei), at its last check run",
    labelNames: ['relayer', 'address'],
    registers,
  });
  const sends = new Counter({
    name: 'relaybox_relayer_lane_sends_total',
    help: 'Sends a key pool lane took',
    labelNames: ['relayer', 'address'],
    registers,
  });
  const topUps = new Counter({
    name: 'relaybox_relayer_lane_top_ups_total',
    help: "Top-ups a key pool's funding key sent to its lanes (each a tracked transaction)",
    labelNames: ['relayer_id', 'network'],
    registers,
  });
  return {
    lane(relayerId, address, s) {
      const labels = { relayer: relayerId, address };
      pending.set(labels, s.pending);
      for (const name of LANE_STATES) state.set({ ...labels, state: name }, name === s.state ? 1 : 0);
      if (s.balance !== null) balance.set(labels, Number(s.balance));
    },
    laneSent: (relayerId, address) => sends.inc({ relayer: relayerId, address }),
    laneTopUp: (relayerId, network) => topUps.inc({ relayer_id: relayerId, network }),
  };
}
