// A key pool relayer's lanes (issue 44) above its transactions: each key's address, balance (in the chain's coin, the
// smallest unit on hover), pending of its max, state and why; its funding key, and the top-ups it sent, where the
// relayer has one.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { Amount, e, shortId, UNIT_OF } from '../ui.ts';

interface Lane {
  address: string;
  signer_id: string;
  balance: string | null;
  pending: number;
  max_pending: number;
  state: string;
  state_reason: string | null;
}
interface PoolRecord {
  network_type?: string;
  lanes?: Lane[];
  funding_signer_id?: string;
  funding?: Lane;
}
type Tx = Record<string, unknown> & { id: string; status: string };

/** Read again this often while shown: balances and states are the chain's and the check's, not in the events. */
const REFRESH_MS = 5_000;

function laneRow(lane: Lane, role: string, unit: string) {
  return e(
    'tr',
    { key: lane.address, 'data-lane': lane.address, 'data-state': lane.state },
    e('td', { class: 'mono' }, lane.address, e('div', { class: 'muted' }, `${role} · ${lane.signer_id}`)),
    e('td', { class: 'balance' }, e(Amount, { raw: lane.balance, unit })),
    e('td', { class: 'pending' }, `${lane.pending} / ${lane.max_pending}`),
    e(
      'td',
      { class: 'state' },
      e('span', { class: `badge ${lane.state === 'active' ? 'ok' : 'warn'}` }, lane.state),
      lane.state_reason ? e('div', { class: 'muted state-reason' }, lane.state_reason) : null,
    ),
  );
}

function topUps(relayerId: string, txs: readonly Tx[]) {
  const list = txs.filter((t) => t.lane_top_up);
  if (list.length === 0) return null;
  return e(
    'ul',
    { class: 'top-ups' },
    list.map((t) =>
      e(
        'li',
        { key: t.id, 'data-top-up': t.id, 'data-status': t.status },
        'top-up ',
        e('a', { href: `#/tx/${enc(relayerId)}/${enc(t.id)}`, class: 'mono' }, shortId(t.id)),
        ` to ${shortId((t.lane_top_up as { lane?: string }).lane)}: `,
        e(Amount, { raw: t.value, unit: 'wei' }),
        ' ',
        e('span', { class: `status s-${t.status}` }, t.status),
      ),
    ),
  );
}

/** Nothing for a relayer without a pool (its record has no lanes). */
export function Lanes({ relayerId, txs }: { relayerId: string; txs: readonly Tx[] }) {
  const [pool, setPool] = useState<PoolRecord | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setInterval> | undefined;
    const read = () =>
      api<PoolRecord>(`/relayers/${enc(relayerId)}`).then(
        (a) => {
          if (!live) return;
          setPool(a.data);
          // A relayer without a pool is read once.
          if (a.data.lanes) timer ??= setInterval(read, REFRESH_MS);
          else clearInterval(timer);
        },
        () => undefined,
      );
    void read();
    return () => ((live = false), clearInterval(timer));
  }, [relayerId]);
  if (!pool?.lanes) return null;
  const unit = UNIT_OF[pool.network_type ?? 'evm'] ?? 'wei';
  return e(
    'section',
    { class: 'lanes', 'aria-label': 'Keys of the pool' },
    e('h2', null, `Keys (${pool.lanes.length})`),
    e(
      'table',
      { class: 'lanes' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['key', 'balance', 'pending', 'state'].map((t) => e('th', { scope: 'col' }, t)),
        ),
      ),
      e(
        'tbody',
        null,
        pool.lanes.map((l, k) => laneRow(l, k === 0 ? 'first key' : 'key', unit)),
        pool.funding ? laneRow(pool.funding, 'funding key', unit) : null,
      ),
    ),
    topUps(relayerId, txs),
  );
}
