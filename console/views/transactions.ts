// Transactions of one relayer: filter by status, find by id or hash, updated live from the events stream.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { streamEvents } from '../events.ts';
import { Amount, ErrorLine, UNIT_OF, When, e, shortId } from '../ui.ts';
import { Lanes } from './lanes.ts';

type Tx = Record<string, unknown> & { id: string; status: string; created_at: string };
const STATUSES = ['', 'pending', 'sent', 'submitted', 'mined', 'confirmed', 'failed', 'expired', 'canceled'];

function matches(tx: Tx, search: string): boolean {
  if (!search) return true;
  const s = search.toLowerCase();
  const hashes = [tx.hash, ...((tx.hashes as unknown[] | undefined) ?? [])].filter(
    (h): h is string => typeof h === 'string',
  );
  return tx.id.toLowerCase().includes(s) || hashes.some((h) => h.toLowerCase().includes(s));
}

export function Transactions({ relayerId, go }: { relayerId: string | undefined; go: (hash: string) => void }) {
  const [relayers, setRelayers] = useState<Array<{ id: string; network_type: string }>>([]);
  const [txs, setTxs] = useState<Tx[]>([]);
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<Array<{ id: string; network_type: string }>>('/relayers?per_page=100').then((a) => {
      setRelayers(a.data);
      if (!relayerId && a.data[0]) go(`#/transactions/${enc(a.data[0].id)}`);
    }, setError);
  }, []);
  useEffect(() => {
    if (!relayerId) return;
    setTxs([]);
    api<Tx[]>(`/relayers/${enc(relayerId)}/transactions?per_page=100${status ? `&status=${status}` : ''}`).then(
      (a) => setTxs(a.data),
      setError,
    );
    // Live: a change replaces its row, a new transaction comes on top.
    return streamEvents(relayerId, ({ transaction }) => {
      const tx = transaction as Tx;
      setTxs((list) => {
        const at = list.findIndex((t) => t.id === tx.id);
        if (status && tx.status !== status) return at >= 0 ? list.filter((t) => t.id !== tx.id) : list;
        if (at >= 0) return list.map((t) => (t.id === tx.id ? tx : t));
        return [tx, ...list];
      });
    });
  }, [relayerId, status]);
  // An exact id not on the page: asked of the API.
  const lookup = async () => {
    if (!relayerId || !search || txs.some((t) => matches(t, search))) return;
    try {
      const found = (await api<Tx>(`/relayers/${enc(relayerId)}/transactions/${enc(search)}`)).data;
      setTxs((list) => [found, ...list]);
    } catch (err) {
      setError(err);
    }
  };
  const shown = txs.filter((t) => matches(t, search));
  const unit = UNIT_OF[relayers.find((r) => r.id === relayerId)?.network_type ?? 'evm'] ?? 'wei';
  return e(
    'div',
    { class: 'transactions' },
    e(
      'div',
      { class: 'toolbar' },
      e(
        'label',
        null,
        'relayer ',
        e(
          'select',
          {
            name: 'relayer',
            value: relayerId ?? '',
            onChange: (ev: Event) => go(`#/transactions/${enc((ev.target as HTMLSelectElement).value)}`),
          },
          relayers.map((r) => e('option', { value: r.id }, r.id)),
        ),
      ),
      e(
        'label',
        null,
        'status ',
        e(
          'select',
          { name: 'status', value: status, onChange: (ev: Event) => setStatus((ev.target as HTMLSelectElement).value) },
          STATUSES.map((s) => e('option', { value: s }, s || 'any')),
        ),
      ),
      e(
        'label',
        null,
        'id or hash ',
        e('input', {
          name: 'search',
          value: search,
          placeholder: 'id or 0x...',
          onInput: (ev: Event) => setSearch((ev.target as HTMLInputElement).value.trim()),
          onKeyDown: (ev: KeyboardEvent) => ev.key === 'Enter' && void lookup(),
        }),
      ),
      e('span', { class: 'muted live' }, 'live'),
    ),
    e(ErrorLine, { error }),
    relayerId ? e(Lanes, { relayerId, txs, key: relayerId }) : null,
    e(
      'table',
      { class: 'txs' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['id', 'status', 'hash', 'to', 'value', 'nonce', 'created'].map((t) => e('th', { scope: 'col' }, t)),
        ),
      ),
      e(
        'tbody',
        null,
        shown.map((tx) =>
          e(
            'tr',
            { key: tx.id, 'data-tx': tx.id, 'data-status': tx.status },
            e(
              'td',
              null,
              e(
                'a',
                { href: `#/tx/${enc(String(tx.relayer_id ?? relayerId))}/${enc(tx.id)}`, class: 'mono' },
                shortId(tx.id),
              ),
            ),
            e(
              'td',
              null,
              e('span', { class: `status s-${tx.status}` }, tx.status),
              tx.lane_top_up ? e('span', { class: 'badge top-up' }, 'top-up') : null,
            ),
            e('td', { class: 'mono' }, shortId(tx.hash)),
            e('td', { class: 'mono' }, shortId(tx.to)),
            e('td', { class: 'value' }, e(Amount, { raw: tx.value, unit })),
            e('td', null, String(tx.nonce ?? '')),
            e('td', null, e(When, { at: tx.created_at })),
          ),
        ),
      ),
    ),
    shown.length === 0 ? e('p', { class: 'muted' }, 'No transaction matches.') : null,
  );
}
