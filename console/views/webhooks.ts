// Webhooks: each notification (its URL as text), its recent deliveries (status, attempts, last error, next retry),
// and a retry button for the failed ones.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { may, needs, type Me } from '../access.ts';
import { Action, ErrorLine, e, shortId, time } from '../ui.ts';

interface Notification { id: string; type: string; url: string; has_signing_key: boolean }
interface Delivery { id: string; event: string; transaction_id: string | null; status: string; attempts: number; last_error: string | null; next_attempt_at: string | null; created_at: string; delivered_at: string | null }

export function Webhooks({ me }: { me: Me }) {
  const [list, setList] = useState<Array<{ n: Notification; deliveries: Delivery[]; total: number }>>([]);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const notifications = (await api<Notification[]>('/notifications?per_page=100')).data;
      setList(
        await Promise.all(
          notifications.map(async (n) => {
            const a = await api<Delivery[]>(`/notifications/${enc(n.id)}/deliveries?per_page=20`);
            return { n, deliveries: a.data, total: a.pagination?.total_items ?? a.data.length };
          }),
        ),
      );
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(load, 5_000);
    return () => clearInterval(timer);
  }, []);
  const retry = async (n: Notification, d: Delivery) => {
    try {
      await api(`/notifications/${enc(n.id)}/deliveries/${enc(d.id)}/retry`, { method: 'POST' });
      setError(null);
    } catch (err) {
      setError(err);
    }
    void load();
  };
  return e(
    'div',
    { class: 'webhooks' },
    e(ErrorLine, { error }),
    list.length === 0 ? e('p', { class: 'muted' }, 'No notification.') : null,
    list.map(({ n, deliveries, total }) => {
      const failing = deliveries.filter((d) => d.status === 'failed').length;
      const allowed = may(me, 'notification', 'execute', n.id);
      return e(
        'section',
        { class: 'notification', 'data-notification': n.id },
        e('h2', null, n.id, ' ', failing ? e('span', { class: 'badge bad' }, `${failing} failed`) : e('span', { class: 'badge ok' }, 'no failure'), ' ', e('span', { class: 'muted' }, n.has_signing_key ? 'signed' : 'unsigned')),
        e('div', { class: 'mono url' }, n.url),
        e(
          'table',
          { class: 'deliveries' },
          e('thead', null, e('tr', null, ['event', 'transaction', 'status', 'attempts', 'last error', 'next retry', 'created', ''].map((t) => e('th', null, t)))),
          e(
            'tbody',
            null,
            deliveries.map((d) =>
              e(
                'tr',
                { 'data-delivery': d.id, 'data-status': d.status },
                e('td', null, d.event, e('div', { class: 'muted mono' }, shortId(d.id))),
                e('td', { class: 'mono' }, shortId(d.transaction_id)),
                e('td', null, e('span', { class: `badge ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'}` }, d.status)),
                e('td', null, String(d.attempts)),
                e('td', { class: 'last-error' }, d.last_error ?? ''),
                e('td', null, d.next_attempt_at ? time(d.next_attempt_at) : '—'),
                e('td', null, time(d.created_at)),
                e('td', null, d.status === 'failed' ? e(Action, { name: 'retry', allowed, why: needs('notification', 'execute', n.id), onClick: () => void retry(n, d) }, 'Retry') : null),
              ),
            ),
          ),
        ),
        e('p', { class: 'muted' }, `${deliveries.length} most recent of ${total}`),
      );
    }),
  );
}
