// A submission (Solana sendTransaction, Stellar sendTransaction) sent to every RPC URL of a network that takes them, as
// the EVM's broadcasts are (src/chains/evm/adapter.ts createBroadcaster): a URL that answers "accepted" and forwards
// nothing cannot hold a transaction back while another URL delivers it. Reads stay failover-only (rpc-pool.ts).

/** How one URL's answer counts: accepted as new, already known there, refused, busy (try later), or no answer. */
export type AnswerKind = 'new' | 'known' | 'refused' | 'busy' | 'unavailable';

/** Answers ranked for the combined outcome: accepted if any URL accepted; else the first refusal; else busy; else none. */
const RANK: readonly AnswerKind[] = ['new', 'known', 'refused', 'busy'];

export interface SubmitUrl {
  takesSubmissions(): boolean;
  distrust(reason: string, ms: number): void;
}

/** A URL caught accepting what never reached its network takes no submission for this long (reads still go to it). */
const DISTRUST_MS = 10 * 60_000;
/** Ids remembered with the URLs that accepted them as new (the oldest forgotten first). */
const ACCEPTED_KEPT = 20_000;

export function createSubmitter<U extends SubmitUrl>(urls: readonly U[]) {
  const accepted = new Map<string, Set<U>>();
  const remember = (id: string, who: U) => {
    const set = accepted.get(id) ?? new Set<U>();
    accepted.delete(id);
    accepted.set(id, set.add(who));
    if (accepted.size > ACCEPTED_KEPT) accepted.delete(accepted.keys().next().value!);
  };

  /**
   * `via(url)` submits through one URL; `via(undefined)` through the failover (its rounds and backoff), used when the
   * network has one URL, none takes submissions now, or none answered on its own.
   */
  async function submit<O>(
    id: string,
    via: (url: U | undefined) => Promise<O>,
    kind: (answer: O) => AnswerKind,
  ): Promise<O> {
    const open = urls.filter((u) => u.takesSubmissions());
    if (urls.length < 2 || open.length === 0) {
      const answer = await via(undefined);
      if (urls.length === 1 && kind(answer) === 'new') remember(id, urls[0]!);
      return answer;
    }
    const answers = await Promise.all(open.map((u) => via(u)));
    const kinds = answers.map(kind);
    kinds.forEach((k, i) => k === 'new' && remember(id, open[i]!));
    for (const wanted of RANK) {
      const at = kinds.indexOf(wanted);
      if (at >= 0) return answers[at]!;
    }
    return via(undefined);
  }

  /**
   * A submission accepted earlier is unknown to the network past the point it could still land: each URL that accepted
   * `id` as new is asked (`unknownAt`, that URL alone) and one whose network does not know it is distrusted. Returns how
   * many were.
   */
  async function didNotLand(id: string, unknownAt: (url: U) => Promise<boolean>, reason: string): Promise<number> {
    const who = [...(accepted.get(id) ?? [])];
    accepted.delete(id);
    const asked = await Promise.all(who.map((u) => unknownAt(u).catch(() => false)));
    const unknown = who.filter((_, i) => asked[i]);
    for (const u of unknown) u.distrust(reason, DISTRUST_MS);
    return unknown.length;
  }

  return { submit, didNotLand };
}
