// The traffic of a scenario: `count` sends through the API, spread evenly over `spreadMs` (so they land before,
// during and after the fault), each with its own marker: the value it moves (MARKER_BASE + i wei), which is how the
// chain is later searched for it. Each answer is kept: acknowledged (200 and an id), refused (any other status),
// or unknown (the connection was cut: the send may or may not have been stored).
import { API_KEY } from '../helper.ts';
import { RELAYER_ID } from './service.ts';
import type { Hex } from 'viem';

/** anvil's account #2: the recipient of every send. */
export const RECIPIENT: Hex = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const MARKER_BASE = 1_000_000_000n;
/** A contract that reverts every call (installed by the runner): every tenth send calls it and must end `failed`. */
export const REVERTER: Hex = '0x00000000000000000000000000000000000c4a05';
const reverts = (i: number) => i % 10 === 3;

export interface SendOutcome {
  marker: bigint;
  kind: 'acked' | 'refused' | 'unknown';
  /** Acknowledged: the transaction id(s) the answers carried (one per POST; all equal when they share a key). */
  ids: string[];
  statuses: number[];
  codes: string[];
  /** When the first copy was sent (ms since the epoch). */
  at: number;
  /** Answers that said they replayed an earlier request's transaction (Idempotent-Replayed: true). */
  replayed: number;
}

export interface LoadOptions {
  count: number;
  spreadMs: number;
  inFlight?: number;
  /** POSTs per send, racing, sharing one Idempotency-Key (1: a plain send, no key). */
  copies?: number;
  /** More fields for send i (e.g. a valid_until), computed when it is sent. */
  extra?: (i: number) => Record<string, unknown>;
  /** The service's current URL (it changes when the service is restarted). */
  url(): string;
  signal?: AbortSignal;
  /** After `count`, sending goes on at the same pace while this holds (a fault still running needs traffic to hit). */
  keepGoing?: () => boolean;
  /** Requests in flight right now, kept up to date for a fault that wants to land mid-request. */
  traffic?: Traffic;
}

export interface Traffic {
  inFlight: number;
}

const REQUEST_TIMEOUT_MS = 30_000;

async function post(
  url: string,
  body: string,
  key: string | undefined,
): Promise<{ status: number; id?: string; code?: string; replayed: boolean }> {
  const headers: Record<string, string> = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  if (key) headers['idempotency-key'] = key;
  const res = await fetch(`${url}/api/v1/relayers/${RELAYER_ID}/transactions`, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const json = (await res.json().catch(() => ({}))) as { data?: { id?: string } | null; error?: unknown };
  // A refusal's reason, shortened: the suite prints which reasons it saw.
  const replayed = res.headers.get('idempotent-replayed') === 'true';
  return {
    status: res.status,
    id: json.data?.id,
    code: typeof json.error === 'string' ? json.error.slice(0, 80) : undefined,
    replayed,
  };
}

/** A connection refused never reached the service (it is down, restarting): safe to try again, as a client would. */
async function postRetryingRefused(o: LoadOptions, body: string, key: string | undefined) {
  const deadline = Date.now() + REQUEST_TIMEOUT_MS;
  for (;;) {
    if (o.traffic) o.traffic.inFlight++;
    try {
      return await post(o.url(), body, key);
    } catch (err) {
      const refused = (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      if (o.traffic) o.traffic.inFlight--;
    }
  }
}

/** One logical send: its copies race; the worst answer decides (a cut connection makes it unknown). */
async function sendOne(o: LoadOptions, i: number, runId: string): Promise<SendOutcome> {
  const at = Date.now();
  const marker = MARKER_BASE + BigInt(i);
  // Copies share one body, as a client's retries would.
  // A call the node would refuse to estimate: its gas is given, so it is sent and mined as a revert.
  const call = reverts(i) ? { to: REVERTER, data: '0x01', gas_limit: 60_000 } : { to: RECIPIENT };
  const body = JSON.stringify({ ...call, value: marker.toString(), speed: 'fast', ...o.extra?.(i) });
  const copies = o.copies ?? 1;
  const key = copies > 1 ? `${runId}-${marker}` : undefined;
  const answers = await Promise.all(
    Array.from({ length: copies }, () => postRetryingRefused(o, body, key).catch(() => null)),
  );
  const ids = answers.flatMap((a) => (a?.status === 200 && a.id ? [a.id] : []));
  const statuses = answers.map((a) => a?.status ?? 0);
  const codes = answers.flatMap((a) => (a?.code ? [a.code] : []));
  const kind = answers.some((a) => a === null) ? 'unknown' : ids.length > 0 ? 'acked' : 'refused';
  return { marker, at, kind, ids, statuses, codes, replayed: answers.filter((a) => a?.replayed).length };
}

export async function runLoad(o: LoadOptions): Promise<SendOutcome[]> {
  const started = Date.now();
  const runId = `${process.pid}-${started}`;
  const gap = o.count > 1 ? o.spreadMs / (o.count - 1) : 0;
  const outcomes: SendOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while ((next < o.count || o.keepGoing?.()) && !o.signal?.aborted) {
      const i = next++;
      const wait = started + i * gap - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // Workers claim a send ahead of its time: one beyond `count` goes only if the fault still runs when it is due.
      if (i >= o.count && !o.keepGoing?.()) break;
      outcomes.push(await sendOne(o, i, runId));
    }
  };
  await Promise.all(Array.from({ length: o.inFlight ?? 16 }, worker));
  return outcomes.sort((a, b) => (a.marker < b.marker ? -1 : 1));
}
