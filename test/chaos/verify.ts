// The end of a scenario, judged from the outside: the records as the API lists them, and the chain read block by
// block. Every record final; no marker mined twice; the relayer's nonces 0..n-1 all mined (NOOPs included) and
// nothing left queued; every mined transaction of the relayer belongs to a record (or to the test's own sends with
// the key); a refused send left nothing behind; each record's final status agrees with what the chain holds. A key
// pool's relayer is read key by key: each key's nonces 0..n-1 all mined, none twice.
import type { Hex } from 'viem';
import { API_KEY } from '../helper.ts';
import { FINAL_STATUSES } from '../../src/domain/types.ts';
import { minedFrom, type ChaosChain, type MinedTx } from './chain.ts';
import { RELAYER_ADDRESS, RELAYER_ID } from './service.ts';
import type { SendOutcome } from './load.ts';

export interface Verdict {
  records: number;
  statuses: Record<string, number>;
  stuck: number;
  /** Markers mined more than once (a send applied twice). */
  duplicates: number;
  /** Markers with more than one record (one send stored twice). */
  duplicateRecords: number;
  /** Those records (id, status, nonce, created_at), for the failure message. */
  storedTwice: string[];
  /** Nonces below the chain's nonce that no mined transaction holds, plus queued ones the chain cannot reach. */
  nonceGaps: number;
  /** Mined transactions of the relayer that no record (and no send of the test's own) accounts for. */
  unaccounted: number;
  /** Sends answered with an error that still reached the store or the chain. */
  refusedButApplied: number;
  /** Acknowledged sends whose record is missing, or whose copies were given different ids. */
  ackedLost: number;
  /** Records whose final status disagrees with the chain (confirmed but not mined, expired but its content mined…). */
  mismatches: string[];
  mined: number;
  /** Records re-signed under a new nonce because another transaction took theirs (status_reason says so). */
  renonced: number;
}

type TxRecord = {
  id: string;
  status: string;
  nonce: number;
  hash: string | null;
  hashes?: string[];
  noop_hashes?: string[];
  value: string;
  to: string | null;
  status_reason?: string | null;
  created_at?: string;
};

async function listRecords(url: string): Promise<TxRecord[]> {
  const all: TxRecord[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/api/v1/relayers/${RELAYER_ID}/transactions?per_page=100&page=${page}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const body = (await res.json()) as { data: TxRecord[]; pagination: { total_items: number } };
    if (res.status !== 200) throw new Error(`listing answered ${res.status}: ${JSON.stringify(body)}`);
    all.push(...body.data);
    if (all.length >= body.pagination.total_items || body.data.length === 0) return all;
  }
}

function countBy<T>(items: T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
}

/** What the chain says about one final record, or why it disagrees. */
function mismatch(r: TxRecord, mined: Map<string, MinedTx>, markerCount: number): string | undefined {
  const onChain = r.hash ? mined.get(r.hash.toLowerCase()) : undefined;
  const isNoop = (h: string) => (r.noop_hashes ?? []).includes(h);
  switch (r.status) {
    case 'confirmed':
      if (!onChain || onChain.status !== 1 || markerCount !== 1)
        return `${r.id} confirmed: hash ${onChain ? 'mined' : 'not mined'}, content mined ${markerCount}×`;
      // The record describes what was mined: the API's to and value are the mined version's.
      if (onChain.value.toString() !== r.value || onChain.to?.toLowerCase() !== r.to?.toLowerCase())
        return `${r.id} confirmed (${r.status_reason ?? 'no reason'}): the record says ${r.value} wei to ${r.to}, the mined ${r.hash} moved ${onChain.value} to ${onChain.to}`;
      return undefined;
    case 'failed':
      if (onChain ? onChain.status !== 0 : markerCount !== 0)
        return `${r.id} failed (${r.status_reason}): content mined ${markerCount}×`;
      if (!r.status_reason) return `${r.id} failed without a reason`;
      return undefined;
    case 'expired':
    case 'canceled':
      if (markerCount !== 0) return `${r.id} ${r.status}: its content was mined ${markerCount}×`;
      if (onChain && !isNoop(r.hash!)) return `${r.id} ${r.status}: its mined hash is not a NOOP`;
      return undefined;
    default:
      return `${r.id} not final: ${r.status}`;
  }
}

/** Nonces below the key's chain nonce that no mined transaction holds, plus queued ones the chain cannot reach. */
async function holesOf(chain: ChaosChain, address: Hex, txs: MinedTx[]): Promise<number> {
  const nonces = txs.map((t) => t.nonce).sort((a, b) => a - b);
  const [latest, pending] = await Promise.all([chain.nonce(address, 'latest'), chain.nonce(address, 'pending')]);
  return nonces.filter((n, i) => n !== i).length + Math.abs(latest - nonces.length) + (pending - latest);
}

/** `foreign`: hashes of transactions the test itself sent with the relayer's key; `addresses`: the relayer's keys. */
export async function verify(
  chain: ChaosChain,
  url: string,
  outcomes: SendOutcome[],
  foreign: ReadonlySet<string> = new Set(),
  addresses: readonly Hex[] = [RELAYER_ADDRESS],
): Promise<Verdict> {
  // A record's marker: the value its send carried (known by id when acknowledged; a NOOP in its place shows value 0).
  const sentMarker = new Map(outcomes.flatMap((o) => o.ids.map((id) => [id, o.marker.toString()] as const)));
  const markerOf = (r: TxRecord) => sentMarker.get(r.id) ?? r.value;
  const records = await listRecords(url);
  const byKey = await Promise.all(addresses.map((a) => minedFrom(chain, a)));
  const chainTxs = byKey.flat();
  const mined = new Map(chainTxs.map((t) => [t.hash, t]));
  const markerCounts = countBy(
    chainTxs.filter((t) => t.value > 0n && !foreign.has(t.hash)),
    (t) => t.value.toString(),
  );
  const recordsByMarker = countBy(
    records.filter((r) => markerOf(r) !== '0'),
    markerOf,
  );

  const holes = (await Promise.all(addresses.map((a, k) => holesOf(chain, a, byKey[k]!)))).reduce((n, h) => n + h, 0);

  const known = new Set(
    records.flatMap((r) => [...(r.hashes ?? []), ...(r.hash ? [r.hash] : [])].map((h) => h.toLowerCase())),
  );
  const ids = new Set(records.map((r) => r.id));
  const refused = outcomes.filter((o) => o.kind === 'refused');
  return {
    records: records.length,
    statuses: Object.fromEntries(countBy(records, (r) => r.status)),
    stuck: records.filter((r) => !FINAL_STATUSES.has(r.status as never)).length,
    duplicates: [...markerCounts.values()].filter((c) => c > 1).length,
    duplicateRecords: [...recordsByMarker.values()].filter((c) => c > 1).length,
    storedTwice: records
      .filter((r) => (recordsByMarker.get(markerOf(r)) ?? 0) > 1)
      .map((r) => {
        const o = outcomes.find((x) => x.marker.toString() === markerOf(r));
        return `${markerOf(r)}: ${r.id} ${r.status} nonce ${r.nonce} created ${r.created_at}; sent ${o && new Date(o.at).toISOString()} answered ${o?.statuses.join('/')} ids ${o?.ids.join(',')}`;
      }),
    nonceGaps: holes,
    unaccounted: chainTxs.filter((t) => !known.has(t.hash) && !foreign.has(t.hash)).length,
    refusedButApplied: refused.filter(
      (o) => markerCounts.has(o.marker.toString()) || recordsByMarker.has(o.marker.toString()),
    ).length,
    ackedLost: outcomes.filter((o) => o.kind === 'acked' && (new Set(o.ids).size !== 1 || !ids.has(o.ids[0]!))).length,
    mismatches: records.flatMap((r) => mismatch(r, mined, markerCounts.get(markerOf(r)) ?? 0) ?? []),
    mined: chainTxs.length,
    renonced: records.filter((r) => /re-signed with nonce/.test(r.status_reason ?? '')).length,
  };
}
