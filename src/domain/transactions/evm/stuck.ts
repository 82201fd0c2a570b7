import type { Pricing } from './pricing.ts';

// Waits on the node, each with a deadline (issue 40). A node can hold a transaction and never execute it (a pool that
// keeps it `queued` although its nonce is next, a provider that answers "accepted" or "already known" and forwards
// nothing): the node's answers then look like progress forever. Nothing here trusts them past a deadline: the
// resubmit timeout (timing.ts), or a number of re-broadcasts that changed nothing, whichever comes first.

/** Why the check stopped waiting on the node (the `cause` label of relaybox_evm_stuck_escalations_total). */
export type StuckCause =
  /** The node knows the transaction (in its pool) but its pending nonce does not count it, and nothing mines it. */
  | 'held'
  /** The node does not know a transaction a URL accepted: that URL never forwarded it. */
  | 'not_received'
  /** Every re-broadcast was answered as accepted or "already known", and the node's pending nonce never covered it. */
  | 'rebroadcasts'
  /** The chain used its nonce; the node still holds one of its versions, unmined, past the deadline. */
  | 'nonce_taken_held'
  /** The chain used its nonce, the node places a version in a block, but gives no receipt past the deadline. */
  | 'receipt_missing'
  /** A reason only (counted under the cause that led to it): held at the fee cap, re-signed at the same top price. */
  | 'held_at_cap';

/** status_reason of each escalation: what the node is doing, and what the relayer does about it. */
export const STUCK_REASONS: Record<StuckCause, string> = {
  held: 'the node holds it but does not include it: replacing',
  not_received: 'the node never received it although an RPC URL accepted it: replacing, through the other URLs',
  rebroadcasts: 'the node keeps answering "already known" but does not include it: replacing',
  nonce_taken_held: 'its nonce was used on chain while the node still holds it: the held copy is given up',
  receipt_missing: 'the node puts it in a block but gives no receipt for it: waiting for the receipt',
  held_at_cap: 'the node holds it but does not include it, and it is at the fee cap: re-signed at the same price',
};

/**
 * A version at the same top price (the fee cap) that differs from `p`: the tip one wei lower (one wei higher when it
 * is 0), or a legacy gas price one wei lower. It cannot outbid the held one where a pool compares prices (it is
 * refused, and the transaction waits at the cap as before); a pool that holds a transaction without ever promoting it
 * (anvil's queued race) admits it afresh as executable, and it is mined. Null when no such version exists.
 */
export function sameTopPrice(p: Pricing): Pricing | null {
  if (p.type === 'legacy') return p.gasPrice > 1n ? { type: 'legacy', gasPrice: p.gasPrice - 1n } : null;
  if (p.maxPriorityFeePerGas > 0n) return { ...p, maxPriorityFeePerGas: p.maxPriorityFeePerGas - 1n };
  return p.maxFeePerGas > 0n ? { ...p, maxPriorityFeePerGas: 1n } : null;
}

/** A reason written by an escalation (cleared once the transaction is mined: it no longer describes it). */
export const isStuckReason = (reason: string | null | undefined): boolean =>
  reason !== null && reason !== undefined && Object.values(STUCK_REASONS).includes(reason);

/**
 * Re-broadcasts of one version that left the node's pending nonce below it, before it is escalated anyway; doubled
 * per version signed, as the resubmit timeout is (a node that never takes anything is not outbid every few seconds).
 */
const MAX_IDLE_REBROADCASTS = 10;
const idleLimit = (versions: number) => MAX_IDLE_REBROADCASTS * 2 ** Math.min(Math.max(versions - 1, 0), 10);
/** Entries kept by the trackers below (a relayer has at most a few hundred transactions in flight). */
const KEPT = 20_000;

function bounded<V>(map: Map<string, V>, key: string, value: V): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > KEPT) map.delete(map.keys().next().value!);
  return value;
}

/**
 * Counts, per transaction version, the re-broadcasts that changed nothing (the node's pending nonce still below it
 * at the next run). In memory: an instance that takes the relayer over counts afresh, and the resubmit timeout,
 * which is in the record, still bounds the wait.
 */
export function createIdleRebroadcasts() {
  const counts = new Map<string, number>();
  const escalated = new Map<string, true>();
  const key = (id: string, hash: string) => `${id}:${hash.toLowerCase()}`;
  return {
    /** Counts one more for this version (`versions`: how many the transaction has); true once past the limit. */
    add(id: string, hash: string, versions: number): boolean {
      return bounded(counts, key(id, hash), (counts.get(key(id, hash)) ?? 0) + 1) > idleLimit(versions);
    },
    clear(id: string, hash: string): void {
      counts.delete(key(id, hash));
    },
    /** A version escalated that could not be re-priced (at the fee cap): not escalated again every run. */
    atCap(id: string, hash: string): void {
      bounded(escalated, key(id, hash), true);
    },
    wasAtCap: (id: string, hash: string): boolean => escalated.has(key(id, hash)),
  };
}

/** Since when (Unix ms) each transaction has waited on the node in one state, so that wait has a deadline. */
export function createWaitClock() {
  const since = new Map<string, number>();
  return {
    /** Ms this wait (`what` of transaction `id`) has lasted, from its first sight at `now`. */
    waited(id: string, what: string, now: number): number {
      const key = `${id}:${what}`;
      return now - (since.get(key) ?? bounded(since, key, now));
    },
    clear(id: string, what: string): void {
      since.delete(`${id}:${what}`);
    },
  };
}
