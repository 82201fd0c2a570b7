// Webhooks: each notification (its URL as text) with how it is doing (failing, and the class of its last error),
// its recent deliveries (status, attempts, error class, next try) with a retry for the failed ones; and the actions
// on notifications: create, send a test event, delete.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { may, mayAll, type Me } from '../access.ts';
import { Action, Check, Confirm, ErrorLine, Field, FormDialog, When, e, shortId } from '../ui.ts';
import { errorClass, isFailing, nextTry } from '../delivery.ts';

interface Notification {
  id: string;
  type: string;
  url: string;
  has_signing_key: boolean;
}
interface Delivery {
  id: string;
  event: string;
  transaction_id: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}
interface Shown {
  n: Notification;
  deliveries: Delivery[];
  total: number;
}

function health(deliveries: Delivery[]) {
  const failing = deliveries.filter(isFailing);
  const latest = deliveries.find((d) => d.status === 'delivered' || isFailing(d));
  if (latest && isFailing(latest))
    return e(
      'span',
      { class: 'badge bad health', 'data-health': 'failing' },
      `failing: ${errorClass(latest.last_error) ?? 'failed'}`,
    );
  if (failing.length)
    return e(
      'span',
      { class: 'badge warn health', 'data-health': 'recovered' },
      `delivering; ${failing.length} earlier failed`,
    );
  if (deliveries.length === 0) return e('span', { class: 'badge health', 'data-health': 'unused' }, 'nothing sent yet');
  return e('span', { class: 'badge ok health', 'data-health': 'ok' }, 'delivering');
}

function deliveryRow(d: Delivery, retry: (() => void) | null) {
  const cls = errorClass(d.last_error);
  return e(
    'tr',
    { key: d.id, 'data-delivery': d.id, 'data-status': d.status },
    e('td', null, d.event, e('div', { class: 'muted mono' }, shortId(d.id))),
    e('td', { class: 'mono' }, shortId(d.transaction_id)),
    e(
      'td',
      null,
      e(
        'span',
        { class: `badge ${d.status === 'delivered' ? 'ok' : isFailing(d) ? 'bad' : 'warn'}` },
        d.status === 'pending' && isFailing(d) ? 'retrying' : d.status,
      ),
    ),
    e('td', null, String(d.attempts)),
    e('td', { class: 'last-error', title: d.last_error ?? undefined }, cls ?? ''),
    e('td', { class: 'next-try' }, nextTry(d) ?? '—'),
    e('td', null, e(When, { at: d.created_at })),
    e(
      'td',
      null,
      d.status === 'failed' && retry
        ? e(Action, { name: 'retry', allowed: true, label: `Retry delivery ${shortId(d.id)}`, onClick: retry }, 'Retry')
        : null,
    ),
  );
}

function CreateNotification({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const [id, setId] = useState('');
  const [url, setUrl] = useState('');
  const [key, setKey] = useState('');
  const submit = async () => {
    await api('/notifications', {
      method: 'POST',
      body: { ...(id.trim() ? { id: id.trim() } : {}), url: url.trim(), ...(key ? { signing_key: key } : {}) },
    });
    onDone();
  };
  return e(
    FormDialog,
    { title: 'New webhook notification', name: 'new-notification', submit, onClose, label: 'Create' },
    e(Field, { label: 'Id (empty: a new UUID)', name: 'id', value: id, set: setId, autofocus: true }),
    e(Field, {
      label: 'URL',
      name: 'url',
      value: url,
      set: setUrl,
      required: true,
      hint: 'https://... ; events are POSTed there',
    }),
    e(Field, {
      label: 'Signing key (optional, 32+ characters; never shown again)',
      name: 'signing_key',
      kind: 'password',
      value: key,
      set: setKey,
    }),
  );
}

/** URL and signing key: only what was changed is sent; an empty key field keeps the key, "remove" removes it. */
function EditNotification({ n, onClose, onDone }: { n: Notification; onClose: () => void; onDone: () => void }) {
  const [url, setUrl] = useState(n.url);
  const [key, setKey] = useState('');
  const [remove, setRemove] = useState(false);
  const submit = async () => {
    const body: Record<string, unknown> = {};
    if (url.trim() !== n.url) body.url = url.trim();
    if (remove) body.signing_key = '';
    else if (key) body.signing_key = key;
    if (Object.keys(body).length > 0) await api(`/notifications/${enc(n.id)}`, { method: 'PATCH', body });
    onDone();
  };
  return e(
    FormDialog,
    { title: `Edit notification ${n.id}`, name: 'edit-notification', submit, onClose },
    e(Field, { label: 'URL', name: 'url', value: url, set: setUrl, required: true, autofocus: true }),
    e(Field, {
      label: `New signing key (empty: ${n.has_signing_key ? 'keep the current one' : 'stay unsigned'})`,
      name: 'signing_key',
      kind: 'password',
      value: key,
      set: setKey,
    }),
    n.has_signing_key
      ? e(Check, {
          label: 'Remove the signing key (events go unsigned)',
          name: 'remove_key',
          checked: remove,
          set: setRemove,
        })
      : null,
  );
}

export function Webhooks({ me }: { me: Me }) {
  const [list, setList] = useState<Shown[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Notification | null>(null);
  const [editing, setEditing] = useState<Notification | null>(null);
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
  /** One call; its refusal shown as the API's message, its success as `done`. */
  const run = async (call: () => Promise<unknown>, done?: string) => {
    try {
      await call();
      setError(null);
      setNotice(done ?? null);
    } catch (err) {
      setError(err);
      setNotice(null);
    }
    void load();
  };
  const remove = (n: Notification) =>
    run(() => api(`/notifications/${enc(n.id)}`, { method: 'DELETE' }), `Notification ${n.id} deleted.`).then(() =>
      setDeleting(null),
    );
  const test = (n: Notification) =>
    run(
      () => api(`/notifications/${enc(n.id)}/test`, { method: 'POST' }),
      `A test event was queued for ${n.id}: it shows below as notification_test.`,
    );
  return e(
    'div',
    { class: 'webhooks' },
    e(
      'div',
      { class: 'title-row' },
      e('h2', null, 'Webhook notifications'),
      e(
        Action,
        { name: 'new-notification', allowed: mayAll(me, 'notification', 'manage'), onClick: () => setCreating(true) },
        'New notification',
      ),
    ),
    e(ErrorLine, { error }),
    notice ? e('p', { class: 'notice', role: 'status' }, notice) : null,
    list.length === 0 ? e('p', { class: 'muted' }, 'No notification.') : null,
    list.map(({ n, deliveries, total }) => {
      const execute = may(me, 'notification', 'execute', n.id);
      return e(
        'section',
        { key: n.id, class: 'notification', 'data-notification': n.id, 'aria-label': `Notification ${n.id}` },
        e(
          'div',
          { class: 'title-row' },
          e(
            'h3',
            null,
            n.id,
            ' ',
            health(deliveries),
            ' ',
            e('span', { class: 'muted' }, n.has_signing_key ? 'signed' : 'unsigned'),
          ),
          e(
            'span',
            { class: 'row-actions' },
            e(
              Action,
              {
                name: 'test',
                class: 'secondary',
                allowed: execute,
                label: `Send test to ${n.id}`,
                onClick: () => void test(n),
              },
              'Send test',
            ),
            e(
              Action,
              {
                name: 'edit',
                class: 'secondary',
                allowed: may(me, 'notification', 'manage', n.id),
                label: `Edit ${n.id}`,
                onClick: () => setEditing(n),
              },
              'Edit',
            ),
            e(
              Action,
              {
                name: 'delete',
                class: 'danger',
                allowed: may(me, 'notification', 'manage', n.id),
                label: `Delete ${n.id}`,
                onClick: () => setDeleting(n),
              },
              'Delete',
            ),
          ),
        ),
        e('div', { class: 'mono url' }, n.url),
        e(
          'table',
          { class: 'deliveries' },
          e(
            'thead',
            null,
            e(
              'tr',
              null,
              ['event', 'transaction', 'status', 'attempts', 'last error', 'next try', 'created'].map((t) =>
                e('th', { scope: 'col' }, t),
              ),
              e('th', { scope: 'col' }, e('span', { class: 'sr-only' }, 'actions')),
            ),
          ),
          e(
            'tbody',
            null,
            deliveries.map((d) =>
              deliveryRow(
                d,
                execute
                  ? () =>
                      void run(() =>
                        api(`/notifications/${enc(n.id)}/deliveries/${enc(d.id)}/retry`, { method: 'POST' }),
                      )
                  : null,
              ),
            ),
          ),
        ),
        e('p', { class: 'muted' }, `${deliveries.length} most recent of ${total}`),
      );
    }),
    editing
      ? e(EditNotification, {
          n: editing,
          onClose: () => setEditing(null),
          onDone: () => (setEditing(null), void load()),
        })
      : null,
    creating
      ? e(CreateNotification, { onClose: () => setCreating(false), onDone: () => (setCreating(false), void load()) })
      : null,
    deleting
      ? e(
          Confirm,
          {
            title: `Delete notification ${deleting.id}?`,
            confirm: 'Delete it',
            onConfirm: () => void remove(deleting),
            onCancel: () => setDeleting(null),
          },
          e(
            'p',
            null,
            'Nothing more is sent to its URL. While a relayer still points at it, the API refuses and names the relayers.',
          ),
        )
      : null,
  );
}
