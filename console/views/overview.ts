// Overview: every relayer (network, address, balance with a low-balance warning, paused or disabled and why, pending
// count, oldest pending age) with its actions (pause, resume, edit, delete; create), the readiness of each configured
// component, and the last hour's sends, confirmations, failures and stage latencies, refreshed as events arrive.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { streamEvents } from '../events.ts';
import { may, mayAll, type Me } from '../access.ts';
import { Action, Amount, Bars, Confirm, ErrorLine, When, coin, e, UNIT_OF } from '../ui.ts';
import { RelayerDialog, type Relayer } from './relayer-forms.ts';

interface BalanceWatch {
  level: 'ok' | 'low' | 'below_min_balance';
  min_balance: string | number;
  sends_covered: number | null;
}
interface Status {
  balance?: string;
  pending_transactions_count?: number;
  last_confirmed_transaction_timestamp?: string | null;
  paused?: boolean;
  system_disabled?: boolean;
  disabled_reason?: unknown;
  balance_watch?: BalanceWatch | null;
  rpc?: { available: boolean; reason?: string };
}
interface Minute {
  at: number;
  counts: Record<string, number>;
  latency: Record<string, { p50: number; p99: number; n: number }>;
}
interface Row {
  relayer: Relayer;
  status?: Status;
  statusError?: string;
  minutes?: Minute[];
  oldest?: string | null;
  since?: string;
}

type Data = { rows: Row[]; ready: Record<string, unknown> | null };
type Update = (change: (data: Data) => Data) => void;

/** One relayer's status (its chain's answer) and last hour: fetched on their own, so a slow RPC delays only its row. */
async function details(relayer: Relayer): Promise<Partial<Row>> {
  const [status, activity] = await Promise.allSettled([
    api<Status>(`/relayers/${enc(relayer.id)}/status`),
    api<{ minutes: Minute[]; oldest_unfinished_at: string | null; since?: string }>(
      `/relayers/${enc(relayer.id)}/activity`,
    ),
  ]);
  const out: Partial<Row> =
    status.status === 'fulfilled'
      ? { status: status.value.data, statusError: undefined }
      : { status: undefined, statusError: (status.reason as Error).message };
  if (activity.status === 'fulfilled')
    Object.assign(out, {
      minutes: activity.value.data.minutes,
      oldest: activity.value.data.oldest_unfinished_at,
      since: activity.value.data.since,
    });
  return out;
}

/** The relayers at once (keeping what was shown of them), then each row's details and the readiness as they come. */
async function load(update: Update): Promise<void> {
  const relayers = (await api<Relayer[]>('/relayers?per_page=100')).data;
  update((d) => ({
    ...d,
    rows: relayers.map((relayer) => ({ ...d.rows.find((r) => r.relayer.id === relayer.id), relayer })),
  }));
  for (const relayer of relayers) {
    void details(relayer).then((detail) =>
      update((d) => ({ ...d, rows: d.rows.map((r) => (r.relayer.id === relayer.id ? { ...r, ...detail } : r)) })),
    );
  }
  const res = await fetch('/api/v1/ready', { cache: 'no-store' }).catch(() => undefined);
  const ready = res ? ((await res.json().catch(() => null)) as Record<string, unknown> | null) : null;
  update((d) => ({ ...d, ready }));
}

/** The service's own balance watch when it reports one; else low when under the relayer's min_balance policy, or empty. */
function lowBalance(row: Row): string | null {
  const balance = row.status?.balance;
  if (balance === undefined) return null;
  const unit = UNIT_OF[row.relayer.network_type] ?? '';
  const watch = row.status?.balance_watch;
  if (watch) {
    if (watch.level === 'ok') return null;
    const left = watch.sends_covered === null ? '' : `, about ${watch.sends_covered} send(s) left`;
    return `${watch.level === 'low' ? 'under twice min_balance' : 'below min_balance'} (${coin(watch.min_balance, unit)})${left}`;
  }
  const min = row.relayer.policies?.min_balance;
  try {
    if (min !== undefined && min !== null && BigInt(balance) < BigInt(String(min)))
      return `below min_balance (${coin(min, unit)})`;
    if (BigInt(balance) === 0n) return 'empty: it cannot pay fees';
  } catch {
    return null;
  }
  return null;
}

/** Disabled, paused, RPC down (with its reason as text here, not in the balance column), or active. */
function state(row: Row) {
  const disabled = row.status?.system_disabled ?? row.relayer.system_disabled;
  const reason = (row.status?.disabled_reason ?? row.relayer.disabled_reason) as
    | { type?: string; details?: unknown }
    | null
    | undefined;
  const rpcDown =
    row.status?.rpc?.available === false ? (row.status.rpc.reason ?? 'every RPC URL is down') : row.statusError;
  const badges: ComponentChildren[] = [];
  if (disabled)
    badges.push(
      e(
        'span',
        { class: 'badge bad' },
        `disabled: ${reason?.type ?? 'by the system'}${reason?.details ? ` (${JSON.stringify(reason.details)})` : ''}`,
      ),
    );
  else if (row.relayer.paused) badges.push(e('span', { class: 'badge warn' }, 'paused'));
  if (rpcDown)
    badges.push(
      e('span', { class: 'badge bad rpc-down' }, row.statusError ? 'status unavailable' : 'RPC down'),
      e('div', { class: 'muted state-reason' }, rpcDown),
    );
  if (badges.length === 0) badges.push(e('span', { class: 'badge ok' }, 'active'));
  return badges;
}

function balanceCell(row: Row) {
  const unit = UNIT_OF[row.relayer.network_type] ?? '';
  const low = lowBalance(row);
  const shown =
    row.status?.balance !== undefined
      ? e(Amount, { raw: row.status.balance, unit })
      : e('span', { class: 'muted' }, row.statusError ? 'unknown' : '...');
  return e(
    'td',
    { class: 'balance' },
    shown,
    low ? e('div', { class: 'badge warn low-balance' }, `low balance: ${low}`) : null,
  );
}

function relayerRow(
  me: Me,
  row: Row,
  edit: (r: Relayer) => void,
  pause: (r: Relayer, paused: boolean) => void,
  remove: (r: Relayer) => void,
) {
  const r = row.relayer;
  const manage = may(me, 'relayer', 'manage', r.id);
  // The list's answer: fresh after a pause or resume, where the status may still be the one read before.
  const paused = r.paused;
  return e(
    'tr',
    { key: r.id, 'data-relayer': r.id },
    e('td', null, e('a', { href: `#/transactions/${enc(r.id)}` }, r.id), e('div', { class: 'muted' }, r.name)),
    e('td', null, r.network, e('div', { class: 'muted' }, r.network_type)),
    e('td', { class: 'mono' }, r.address),
    balanceCell(row),
    e('td', { class: 'state' }, state(row)),
    e('td', { class: 'pending' }, String(row.status?.pending_transactions_count ?? '—')),
    e('td', null, row.oldest ? e(When, { at: row.oldest }) : '—'),
    e(
      'td',
      null,
      e(
        'div',
        { class: 'row-actions' },
        e(
          Action,
          {
            name: paused ? 'resume' : 'pause',
            allowed: manage,
            label: `${paused ? 'Resume' : 'Pause'} ${r.id}`,
            onClick: () => pause(r, !paused),
          },
          paused ? 'Resume' : 'Pause',
        ),
        e(
          Action,
          { name: 'edit', class: 'secondary', allowed: manage, label: `Edit ${r.id}`, onClick: () => edit(r) },
          'Edit',
        ),
        e(
          Action,
          { name: 'delete', class: 'danger', allowed: manage, label: `Delete ${r.id}`, onClick: () => remove(r) },
          'Delete',
        ),
      ),
    ),
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
  const start = rows.find((r) => r.minutes?.length)?.minutes?.[0]?.at;
  const since = rows.find((r) => r.since)?.since;
  return [
    e(
      'p',
      { class: 'muted since' },
      'Per minute, UTC, as this instance counted them. Kept in memory: a restart starts them empty',
      since ? [' (counting since ', e(When, { at: since }), ').'] : '.',
    ),
    e(
      'section',
      { class: 'charts' },
      e(Bars, { title: 'sends / min', values: count('sends'), start }),
      e(Bars, { title: 'confirmations / min', values: count('confirmations'), start }),
      e(Bars, { title: 'failures / min', values: count('failures'), start }),
      e(Bars, { title: 'submit p50 (created -> submitted)', values: lat('submit_ms', 'p50'), unit: ' ms', start }),
      e(Bars, { title: 'submit p99', values: lat('submit_ms', 'p99'), unit: ' ms', start }),
      e(Bars, { title: 'confirm p50 (sent -> confirmed)', values: lat('confirm_ms', 'p50'), unit: ' ms', start }),
      e(Bars, { title: 'confirm p99', values: lat('confirm_ms', 'p99'), unit: ' ms', start }),
    ),
  ];
}

/** Only the parts this service has: a component reported `enabled: false` (Redis when none is configured) is left out. */
function readiness(ready: Record<string, unknown> | null) {
  const components = (ready?.components ?? {}) as Record<
    string,
    { status?: string; error?: string; enabled?: boolean }
  >;
  return e(
    'ul',
    { class: 'readiness' },
    Object.entries(components)
      .filter(([, c]) => c.enabled !== false)
      .map(([name, c]) =>
        e(
          'li',
          {
            class: `badge ${c.status === 'healthy' ? 'ok' : c.status === 'degraded' ? 'warn' : 'bad'}`,
            'data-component': name,
            title: c.error ?? '',
          },
          `${name}: ${c.status ?? '?'}`,
          c.error ? ` (${c.error})` : '',
        ),
      ),
  );
}

export function Overview({ me }: { me: Me }) {
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<Relayer | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Relayer | null>(null);
  const again = useRef<() => void>(() => {});
  const refreshNow = () => again.current();
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined;
    const update: Update = (change) => setData((d) => change(d ?? { rows: [], ready: null }));
    const refresh = () => load(update).then(() => setError(null), setError);
    again.current = () => void refresh();
    // Events come in bursts, and each reload asks every relayer's chain for its balance: one reload per 3 s at most.
    const soon = () => (pending ??= setTimeout(() => ((pending = undefined), void refresh()), 3000));
    void refresh();
    const timer = setInterval(refresh, 15_000);
    const stop = streamEvents(undefined, soon);
    return () => (clearInterval(timer), clearTimeout(pending), stop());
  }, []);
  const pause = async (r: Relayer, paused: boolean) => {
    try {
      await api(`/relayers/${enc(r.id)}`, { method: 'PATCH', body: { paused } });
      setError(null);
    } catch (err) {
      setError(err);
    }
    refreshNow();
  };
  const remove = async (r: Relayer) => {
    setDeleting(null);
    try {
      await api(`/relayers/${enc(r.id)}`, { method: 'DELETE' });
      setError(null);
    } catch (err) {
      setError(err);
    }
    refreshNow();
  };
  if (!data) return e('div', null, e(ErrorLine, { error }), error ? null : e('p', { class: 'muted' }, 'Loading...'));
  return e(
    'div',
    { class: 'overview' },
    e(ErrorLine, { error }),
    e(
      'div',
      { class: 'title-row' },
      e('h2', null, 'Relayers'),
      e(
        Action,
        { name: 'new-relayer', allowed: mayAll(me, 'relayer', 'manage'), onClick: () => setEditing('new') },
        'New relayer',
      ),
    ),
    e(
      'table',
      { class: 'relayers' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['relayer', 'network', 'address', 'balance', 'state', 'pending', 'oldest pending', 'actions'].map((t) =>
            e('th', { scope: 'col' }, t),
          ),
        ),
      ),
      e(
        'tbody',
        null,
        data.rows.map((row) => relayerRow(me, row, setEditing, (r, p) => void pause(r, p), setDeleting)),
      ),
    ),
    e('h2', null, 'Readiness'),
    readiness(data.ready),
    e('h2', null, 'Last hour'),
    charts(data.rows),
    deleting
      ? e(
          Confirm,
          {
            title: `Delete relayer ${deleting.id}?`,
            confirm: 'Delete it',
            onConfirm: () => void remove(deleting),
            onCancel: () => setDeleting(null),
          },
          e(
            'p',
            null,
            'It stops relaying and its record goes; its transactions stay on chain. While it has transactions pending, sent or submitted, the API refuses.',
          ),
        )
      : null,
    editing
      ? e(RelayerDialog, {
          me,
          relayer: editing === 'new' ? null : editing,
          onClose: () => setEditing(null),
          onDone: () => (setEditing(null), refreshNow()),
        })
      : null,
  );
}
