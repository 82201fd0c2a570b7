// One transaction: its whole timeline (status changes, broadcasts under each hash, fee changes, webhook deliveries)
// and the two actions on it, replace with a faster speed and cancel, each confirmed after saying what happens on chain.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { streamEvents } from '../events.ts';
import { may, type Me } from '../access.ts';
import { Action, Amount, Confirm, ErrorLine, UNIT_OF, When, e } from '../ui.ts';
import { errorClass, nextTry } from '../delivery.ts';

type Tx = Record<string, unknown> & { id: string; status: string; relayer_id: string };
interface Entry {
  at: string;
  kind: string;
  status?: string | null;
  status_reason?: string | null;
  hash?: string;
  first?: boolean;
  noop?: boolean;
  changes?: Record<string, { from: unknown; to: unknown }>;
  from?: unknown;
  to?: unknown;
  delivery?: {
    id: string;
    status: string;
    attempts: number;
    last_error: string | null;
    next_attempt_at: string | null;
    delivered_at: string | null;
  };
}

const ACTIVE = new Set(['pending', 'sent', 'submitted']);

function describe(entry: Entry) {
  switch (entry.kind) {
    case 'status':
      return [
        e('span', { class: `status s-${entry.status}` }, entry.status ?? ''),
        entry.status_reason ? e('span', { class: 'muted' }, ` ${entry.status_reason}`) : null,
      ];
    case 'broadcast':
      return [
        entry.noop ? 'NOOP broadcast ' : entry.first ? 'broadcast ' : 're-broadcast (new version) ',
        e('span', { class: 'mono' }, entry.hash ?? ''),
      ];
    case 'fees':
      return [
        'fees ',
        Object.entries(entry.changes ?? {}).map(([k, v]) =>
          e('span', { class: 'mono' }, `${k} ${String(v.from)} -> ${String(v.to)}  `),
        ),
      ];
    case 'nonce':
      return [`nonce ${String(entry.from)} -> ${String(entry.to)}`];
    case 'webhook': {
      const d = entry.delivery!;
      const next = nextTry(d);
      return [
        `webhook (${entry.status ?? '?'}) `,
        e(
          'span',
          { class: `badge ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'}` },
          d.status,
        ),
        ` ${d.attempts} attempt(s)`,
        d.last_error ? e('span', { class: 'muted', title: d.last_error }, ` — ${errorClass(d.last_error)}`) : null,
        next ? e('span', { class: 'muted next-try' }, ` · ${next}`) : null,
      ];
    }
    default:
      return [entry.kind];
  }
}

function onChain(kind: 'replace' | 'cancel', tx: Tx) {
  const nonce = tx.nonce === undefined || tx.nonce === null ? 'its nonce' : `nonce ${String(tx.nonce)}`;
  if (tx.network_type === undefined && tx.nonce === undefined) {
    return kind === 'replace' ? 'It is priced again at the fastest speed and sent again.' : 'It is canceled.';
  }
  return kind === 'replace'
    ? `A new version is signed under ${nonce}, to ${String(tx.to ?? '—')} with the same value and data, priced at the "fastest" speed (fees at least 10% above the current version). Whichever version is mined first wins; the record keeps every hash.`
    : `A NOOP is signed under ${nonce}: 0 value from ${String(tx.from ?? 'the relayer')} to itself, priced above the current version. If it is mined before the original, the transaction ends "canceled" and nothing else happens on chain; if the original is mined first, it ends "confirmed".`;
}

/** Replace body: the same transaction at the fastest speed; the value's digits kept exact (a u128 is no JS number). */
function replaceBody(tx: Tx): string {
  const body: Record<string, unknown> = {
    to: tx.to ?? undefined,
    data: tx.data ?? undefined,
    gas_limit: tx.gas_limit ?? undefined,
    speed: 'fastest',
    value: '__VALUE__',
  };
  return JSON.stringify(body).replace('"__VALUE__"', /^\d+$/.test(String(tx.value)) ? String(tx.value) : '0');
}

const TIMES = new Set(['created_at', 'sent_at', 'confirmed_at']);
const FEES = new Set(['gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas']);

function fact(tx: Tx, k: string, unit: string) {
  const v = tx[k];
  if (v === null || v === undefined) return '—';
  if (TIMES.has(k)) return e(When, { at: v, precise: true });
  if (k === 'value' || k === 'funds_reserved' || k === 'l1_fee') return e(Amount, { raw: v, unit });
  if (FEES.has(k)) return e(Amount, { raw: v, unit, as: 'gwei' });
  return String(v);
}

export function Timeline({ me, relayerId, txId }: { me: Me; relayerId: string; txId: string }) {
  const [data, setData] = useState<{ transaction: Tx; entries: Entry[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asking, setAsking] = useState<'replace' | 'cancel' | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [unit, setUnit] = useState('wei');
  useEffect(
    () =>
      void api<{ network_type: string }>(`/relayers/${enc(relayerId)}`).then(
        (a) => setUnit(UNIT_OF[a.data.network_type] ?? 'wei'),
        () => {},
      ),
    [relayerId],
  );
  // A transaction that became final under an open dialog: the dialog goes, and says why (nothing was sent).
  const current = data?.transaction.status;
  useEffect(() => {
    if (asking && !busy && current && !ACTIVE.has(current)) {
      setNotice(`It is ${current} now: the ${asking === 'replace' ? 'replacement' : 'cancel'} was not sent.`);
      setAsking(null);
    }
  }, [current, asking, busy]);
  const path = `/relayers/${enc(relayerId)}/transactions/${enc(txId)}`;
  const load = () =>
    api<{ transaction: Tx; entries: Entry[] }>(`${path}/timeline`).then((a) => setData(a.data), setError);
  useEffect(() => {
    void load();
    return streamEvents(relayerId, ({ transaction }) => transaction.id === txId && void load());
  }, [relayerId, txId]);
  if (!data) return e('div', null, e(ErrorLine, { error }), error ? null : e('p', { class: 'muted' }, 'Loading...'));
  const tx = data.transaction;
  const allowed = may(me, 'relayer', 'execute', relayerId);
  const act = async () => {
    setBusy(true);
    try {
      if (asking === 'replace') await api(path, { method: 'PUT', body: replaceBody(tx) });
      else await api(path, { method: 'DELETE' });
      setError(null);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
    setAsking(null);
    void load();
  };
  return e(
    'div',
    { class: 'timeline-page' },
    e(
      'h2',
      null,
      'Transaction ',
      e('span', { class: 'mono' }, tx.id),
      ' ',
      e('span', { class: `status s-${tx.status}`, 'data-current-status': tx.status }, tx.status),
    ),
    e(
      'dl',
      { class: 'facts' },
      [
        'relayer_id',
        'from',
        'to',
        'value',
        'nonce',
        'hash',
        'gas_price',
        'max_fee_per_gas',
        'max_priority_fee_per_gas',
        'status_reason',
        'created_at',
        'sent_at',
        'confirmed_at',
      ]
        .filter((k) => !FEES.has(k) || (tx[k] !== null && tx[k] !== undefined))
        .flatMap((k) => [
          e('dt', null, k),
          e('dd', { class: TIMES.has(k) ? undefined : 'mono', 'data-fact': k }, fact(tx, k, unit)),
        ]),
      e('dt', null, 'data'),
      e('dd', { class: 'mono data', tabIndex: 0 }, tx.data === null || tx.data === undefined ? '—' : String(tx.data)),
    ),
    ACTIVE.has(tx.status)
      ? e(
          'div',
          { class: 'actions' },
          e(
            Action,
            { name: 'replace', allowed, onClick: () => (setNotice(null), setAsking('replace')) },
            'Replace at fastest speed',
          ),
          e(
            Action,
            { name: 'cancel', class: 'danger', allowed, onClick: () => (setNotice(null), setAsking('cancel')) },
            'Cancel',
          ),
        )
      : e(
          'p',
          { class: 'muted final' },
          tx.status === 'mined'
            ? 'mined: waiting for confirmations; it can no longer be replaced or canceled.'
            : `${tx.status}: final, nothing more can be done to it.`,
        ),
    notice ? e('p', { class: 'notice', role: 'status' }, notice) : null,
    e(ErrorLine, { error }),
    e('h3', null, 'Timeline'),
    e(
      'ol',
      { class: 'timeline' },
      data.entries.map((entry) =>
        e(
          'li',
          { class: `entry k-${entry.kind}`, 'data-kind': entry.kind },
          e(When, { at: entry.at, precise: true }),
          ' ',
          describe(entry),
        ),
      ),
    ),
    asking
      ? e(
          Confirm,
          {
            title: asking === 'replace' ? 'Replace this transaction?' : 'Cancel this transaction?',
            confirm: asking === 'replace' ? 'Replace' : 'Cancel it',
            busy,
            onConfirm: () => void act(),
            onCancel: () => setAsking(null),
          },
          e('p', null, onChain(asking, tx)),
        )
      : null,
  );
}
