// Overview: every relayer (network, address, balance with a low-balance warning, paused or disabled and why, pending
// count, oldest pending age), readiness of each component, and the last hour's sends, confirmations, failures and
// stage latencies, refreshed as transaction events arrive.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { streamEvents } from '../events.ts';
import { Bars, ErrorLine, ago, coin, e } from '../ui.ts';

interface Relayer { id: string; name: string; network: string; network_type: string; address: string; paused: boolean; system_disabled?: boolean; disabled_reason?: { type: string; details: unknown } | null; policies?: Record<string, unknown> | null }
interface BalanceWatch { level: 'ok' | 'low' | 'below_min_balance'; min_balance: string | number; sends_covered: number | null }
interface Status { balance?: string; pending_transactions_count?: number; last_confirmed_transaction_timestamp?: string | null; paused?: boolean; system_disabled?: boolean; disabled_reason?: unknown; balance_watch?: BalanceWatch | null; rpc?: { available: boolean; reason?: string } }
interface Minute { at: number; counts: Record<string, number>; latency: Record<string, { p50: number; p99: number; n: number }> }
interface Row { relayer: Relayer; status?: Status; statusError?: string; minutes?: Minute[]; oldest?: string | null }

const UNIT: Record<string, string> = { evm: 'wei', solana: 'lamport', stellar: 'stroop' };

type Data = { rows: Row[]; ready: Record<string, unknown> | null };
type Update = (change: (data: Data) => Data) => void;

/** One relayer's status (its chain's answer) and last hour: fetched on their own, so a slow RPC delays only its row. */
async function details(relayer: Relayer): Promise<Partial<Row>> {
  const [status, activity] = await Promise.allSettled([api<Status>(`/relayers/${enc(relayer.id)}/status`), api<{ minutes: Minute[]; oldest_unfinished_at: string | null }>(`/relayers/${enc(relayer.id)}/activity`)]);
  const out: Partial<Row> = status.status === 'fulfilled' ? { status: status.value.data, statusError: undefined } : { statusError: (status.reason as Error).message };
  if (activity.status === 'fulfilled') Object.assign(out, { minutes: activity.value.data.minutes, oldest: activity.value.data.oldest_unfinished_at });
  return out;
}

/** The relayers at once (keeping what was shown of them), then each row's details and the readiness as they come. */
async function load(update: Update): Promise<void> {
  const relayers = (await api<Relayer[]>('/relayers?per_page=100')).data;
  update((d) => ({ ...d, rows: relayers.map((relayer) => ({ ...d.rows.find((r) => r.relayer.id === relayer.id), relayer })) }));
  for (const relayer of relayers) {
    void details(relayer).then((detail) => update((d) => ({ ...d, rows: d.rows.map((r) => (r.relayer.id === relayer.id ? { ...r, ...detail } : r)) })));
  }
  const res = await fetch('/api/v1/ready', { cache: 'no-store' }).catch(() => undefined);
  const ready = res ? ((await res.json().catch(() => null)) as Record<string, unknown> | null) : null;
  update((d) => ({ ...d, ready }));
}

/** The service's own balance watch when it reports one; else low when under the relayer's min_balance policy, or empty. */
function lowBalance(row: Row): string | null {
  const balance = row.status?.balance;
  if (balance === undefined) return null;
  const watch = row.status?.balance_watch;
  if (watch) {
    if (watch.level === 'ok') return null;
    const left = watch.sends_covered === null ? '' : `, about ${watch.sends_covered} send(s) left`;
    return `${watch.level === 'low' ? 'under twice min_balance' : 'below min_balance'} (${coin(watch.min_balance, UNIT[row.relayer.network_type] ?? '')})${left}`;
  }
  const min = row.relayer.policies?.min_balance;
  try {
    if (min !== undefined && min !== null && BigInt(balance) < BigInt(String(min))) return `below min_balance (${coin(min, UNIT[row.relayer.network_type] ?? '')})`;
    if (BigInt(balance) === 0n) return 'empty: it cannot pay fees';
  } catch {
    return null;
  }
  return null;
}

function state(row: Row) {
  const disabled = row.status?.system_disabled ?? row.relayer.system_disabled;
  const reason = (row.status?.disabled_reason ?? row.relayer.disabled_reason) as { type?: string; details?: unknown } | null | undefined;
  if (disabled) return e('span', { class: 'badge bad' }, `disabled: ${reason?.type ?? 'by the system'}${reason?.details ? ` (${JSON.stringify(reason.details)})` : ''}`);
  if (row.status?.paused ?? row.relayer.paused) return e('span', { class: 'badge warn' }, 'paused');
  if (row.status?.rpc?.available === false) return e('span', { class: 'badge bad', title: row.status.rpc.reason ?? '' }, 'RPC down');
  return e('span', { class: 'badge ok' }, 'active');
}

function relayerRow(row: Row) {
  const r = row.relayer;
  const low = lowBalance(row);
  return e(
    'tr',
    { 'data-relayer': r.id },
    e('td', null, e('a', { href: `#/transactions/${enc(r.id)}` }, r.id), e('div', { class: 'muted' }, r.name)),
    e('td', null, r.network, e('div', { class: 'muted' }, r.network_type)),
    e('td', { class: 'mono' }, r.address),
    e('td', { class: 'balance' }, row.status?.balance !== undefined ? coin(row.status.balance, UNIT[r.network_type] ?? '') : e('span', { class: 'muted' }, row.statusError ?? '...'), low ? e('div', { class: 'badge warn low-balance' }, `low balance: ${low}`) : null),
    e('td', null, state(row)),
    e('td', { class: 'pending' }, String(row.status?.pending_transactions_count ?? '—')),
    e('td', null, row.oldest ? ago(row.oldest) : '—'),
  );
}

/** Sums (counts) or worst (latency) over relayers, minute by minute. */
function series(rows: Row[], pick: (m: Minute) => number, combine: (a: number, b: number) => number): number[] {
  const out = new Array<number>(60).fill(0);
  for (const row of rows) (row.minutes ?? []).forEach((m, i) => (out[i] = combine(out[i]!, pick(m))));
  return out;
}

function charts(rows: Row[]) {
  const sum = (a: number, b: number) => a + b;
  const count = (name: string) => series(rows, (m) => m.counts[name] ?? 0, sum);
  const lat = (name: string, q: 'p50' | 'p99') => series(rows, (m) => Math.round(m.latency[name]?.[q] ?? 0), Math.max);
  return e(
    'section',
    { class: 'charts' },
    e(Bars, { title: 'sends / min', values: count('sends') }),
    e(Bars, { title: 'confirmations / min', values: count('confirmations') }),
    e(Bars, { title: 'failures / min', values: count('failures') }),
    e(Bars, { title: 'submit p50 (created -> submitted)', values: lat('submit_ms', 'p50'), unit: ' ms' }),
    e(Bars, { title: 'submit p99', values: lat('submit_ms', 'p99'), unit: ' ms' }),
    e(Bars, { title: 'confirm p50 (sent -> confirmed)', values: lat('confirm_ms', 'p50'), unit: ' ms' }),
    e(Bars, { title: 'confirm p99', values: lat('confirm_ms', 'p99'), unit: ' ms' }),
  );
}

function readiness(ready: Record<string, unknown> | null) {
  const components = (ready?.components ?? {}) as Record<string, { status?: string; error?: string }>;
  return e(
    'ul',
    { class: 'readiness' },
    Object.entries(components).map(([name, c]) => e('li', { class: `badge ${c.status === 'healthy' ? 'ok' : c.status === 'degraded' ? 'warn' : 'bad'}`, title: c.error ?? '' }, `${name}: ${c.status ?? '?'}`)),
  );
}

export function Overview() {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined;
    const update: Update = (change) => setData((d) => change(d ?? { rows: [], ready: null }));
    const refresh = () => load(update).then(() => setError(null), setError);
    // Events come in bursts, and each reload asks every relayer's chain for its balance: one reload per 3 s at most.
    const soon = () => (pending ??= setTimeout(() => ((pending = undefined), void refresh()), 3000));
    void refresh();
    const timer = setInterval(refresh, 15_000);
    const stop = streamEvents(undefined, soon);
    return () => (clearInterval(timer), clearTimeout(pending), stop());
  }, []);
  if (!data) return e('div', null, e(ErrorLine, { error }), error ? null : e('p', { class: 'muted' }, 'Loading...'));
  return e(
    'div',
    { class: 'overview' },
    e(ErrorLine, { error }),
    e('h2', null, 'Relayers'),
    e(
      'table',
      { class: 'relayers' },
      e('thead', null, e('tr', null, ['relayer', 'network', 'address', 'balance', 'state', 'pending', 'oldest pending'].map((t) => e('th', null, t)))),
      e('tbody', null, data.rows.map(relayerRow)),
    ),
    e('h2', null, 'Readiness'),
    readiness(data.ready),
    e('h2', null, 'Last hour'),
    charts(data.rows),
  );
}
