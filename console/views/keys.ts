// API keys: the keys this key may read (never their secrets), a new scoped key (its secret shown once, here only),
// and revoking one. Each is one API call with the signed-in key; a key may only mint rights it holds itself.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { may, mayAll, type Me } from '../access.ts';
import { Action, Confirm, ErrorLine, Field, FormDialog, When, e } from '../ui.ts';

interface ApiKey {
  id: string;
  name: string;
  permissions: string[];
  allowed_origins: string[];
  created_at: string;
  rate_limit?: { requests_per_second: number; burst_size: number } | null;
}

function CreateKey({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (key: ApiKey & { value: string }) => void;
}) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState('relayer:all:read');
  const submit = async () => {
    const list = permissions.split(/[\s,]+/).filter(Boolean);
    onCreated(
      (await api<ApiKey & { value: string }>('/api-keys', { method: 'POST', body: { name, permissions: list } })).data,
    );
  };
  return e(
    FormDialog,
    { title: 'New API key', name: 'new-key', submit, onClose, label: 'Create' },
    e(Field, { label: 'Name', name: 'name', value: name, set: setName, required: true, autofocus: true }),
    e(Field, {
      label: 'Permissions, one per line',
      name: 'permissions',
      kind: 'textarea',
      value: permissions,
      set: setPermissions,
      hint: '<area>:<id|all>:<read|execute|manage>, e.g. relayer:sepolia-example:execute; only rights this key holds itself',
    }),
  );
}

/** The secret, once: it is not stored in the browser and the API never shows it again. */
function Secret({ created, onClose }: { created: ApiKey & { value: string }; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  return e(
    Confirm,
    {
      title: `Key ${created.name} created`,
      confirm: 'I have kept it',
      danger: false,
      cancel: null,
      onConfirm: onClose,
      onCancel: onClose,
    },
    e('p', null, 'Its secret, shown this once (only its SHA-256 is stored). Keep it now:'),
    e('pre', { class: 'secret', 'data-secret': '' }, created.value),
    e(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-action': 'copy-secret',
        onClick: () => void navigator.clipboard?.writeText(created.value).then(() => setCopied(true)),
      },
      copied ? 'Copied' : 'Copy the secret',
    ),
  );
}

export function Keys({ me }: { me: Me }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(ApiKey & { value: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const load = () => api<ApiKey[]>('/api-keys?per_page=100').then((a) => (setKeys(a.data), setError(null)), setError);
  useEffect(() => void load(), []);
  const revoke = async (key: ApiKey) => {
    try {
      await api(`/api-keys/${enc(key.id)}`, { method: 'DELETE' });
      setError(null);
    } catch (err) {
      setError(err);
    }
    setRevoking(null);
    void load();
  };
  return e(
    'div',
    { class: 'keys' },
    e(
      'div',
      { class: 'title-row' },
      e('h2', null, 'API keys'),
      e(
        Action,
        { name: 'new-key', allowed: mayAll(me, 'api_key', 'manage'), onClick: () => setCreating(true) },
        'New key',
      ),
    ),
    e('p', { class: 'muted' }, 'The bootstrap API_KEY is not listed: it is set in the environment.'),
    e(ErrorLine, { error }),
    e(
      'table',
      { class: 'key-list' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['name', 'id', 'permissions', 'rate limit', 'created'].map((t) => e('th', { scope: 'col' }, t)),
          e('th', { scope: 'col' }, e('span', { class: 'sr-only' }, 'actions')),
        ),
      ),
      e(
        'tbody',
        null,
        keys.map((k) =>
          e(
            'tr',
            { key: k.id, 'data-key': k.id },
            e('td', null, k.name, k.id === me.id ? e('span', { class: 'badge' }, 'this key') : null),
            e('td', { class: 'mono' }, k.id),
            e(
              'td',
              { class: 'mono' },
              k.permissions.map((p) => e('div', null, p)),
            ),
            e(
              'td',
              null,
              k.rate_limit ? `${k.rate_limit.requests_per_second}/s, burst ${k.rate_limit.burst_size}` : 'default',
            ),
            e('td', null, e(When, { at: k.created_at })),
            e(
              'td',
              null,
              e(
                Action,
                {
                  name: 'revoke',
                  class: 'danger',
                  allowed: may(me, 'api_key', 'manage', k.id),
                  label: `Revoke ${k.name}`,
                  onClick: () => setRevoking(k),
                },
                'Revoke',
              ),
            ),
          ),
        ),
      ),
    ),
    keys.length === 0 ? e('p', { class: 'muted' }, 'No key.') : null,
    creating
      ? e(CreateKey, {
          onClose: () => setCreating(false),
          onCreated: (k) => (setCreating(false), setCreated(k), void load()),
        })
      : null,
    created ? e(Secret, { created, onClose: () => setCreated(null) }) : null,
    revoking
      ? e(
          Confirm,
          {
            title: `Revoke key ${revoking.name}?`,
            confirm: 'Revoke it',
            onConfirm: () => void revoke(revoking),
            onCancel: () => setRevoking(null),
          },
          e(
            'p',
            null,
            revoking.id === me.id
              ? 'This is the key you are signed in with: the console stops working until you sign in with another.'
              : 'Every request with it is refused from now on, on every instance within seconds; its open event streams end.',
          ),
        )
      : null,
  );
}
