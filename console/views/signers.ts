// Signers: the signers this key may read (their type and config without secrets), and a new one: a raw key
// (`plain`) or a remote signer's config. The key is sent once, to the API, and never shown again.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { may, mayAll, type Me } from '../access.ts';
import { Action, Confirm, ErrorLine, Field, FormDialog, e } from '../ui.ts';

interface Signer {
  id: string;
  type: string;
  config: Record<string, unknown>;
}

const TYPES = [
  'plain',
  'aws_kms',
  'azure_key_vault',
  'google_cloud_kms',
  'vault',
  'vault_transit',
  'turnkey',
  'cdp',
  'pkcs11',
];

function CreateSigner({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const [id, setId] = useState('');
  const [type, setType] = useState('plain');
  const [key, setKey] = useState('');
  const [config, setConfig] = useState('{}');
  const submit = async () => {
    let parsed: unknown;
    if (type === 'plain') parsed = { key: key.trim() };
    else {
      try {
        parsed = JSON.parse(config);
      } catch (err) {
        throw new Error(`config is not JSON: ${(err as Error).message}`);
      }
    }
    await api('/signers', { method: 'POST', body: { ...(id.trim() ? { id: id.trim() } : {}), type, config: parsed } });
    onDone();
  };
  return e(
    FormDialog,
    { title: 'New signer', name: 'new-signer', submit, onClose, label: 'Create' },
    e(Field, { label: 'Id (empty: a new UUID)', name: 'id', value: id, set: setId, autofocus: true }),
    e(Field, {
      label: 'Type',
      name: 'type',
      kind: 'select',
      value: type,
      set: setType,
      options: TYPES.map((t): [string, string] => [t, t]),
    }),
    type === 'plain'
      ? e(Field, {
          label: 'Private key (32 bytes of hex)',
          name: 'key',
          kind: 'password',
          value: key,
          set: setKey,
          required: true,
          hint: 'stored encrypted when STORAGE_ENCRYPTION_KEY is set; never shown again',
        })
      : e(Field, {
          label: 'Config (JSON object, as in docs/signers.md)',
          name: 'config',
          kind: 'textarea',
          value: config,
          set: setConfig,
        }),
  );
}

export function Signers({ me }: { me: Me }) {
  const [signers, setSigners] = useState<Signer[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Signer | null>(null);
  const load = () => api<Signer[]>('/signers?per_page=100').then((a) => (setSigners(a.data), setError(null)), setError);
  const remove = async (signer: Signer) => {
    setDeleting(null);
    try {
      await api(`/signers/${enc(signer.id)}`, { method: 'DELETE' });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => void load(), []);
  return e(
    'div',
    { class: 'signers' },
    e(
      'div',
      { class: 'title-row' },
      e('h2', null, 'Signers'),
      e(
        Action,
        { name: 'new-signer', allowed: mayAll(me, 'signer', 'manage'), onClick: () => setCreating(true) },
        'New signer',
      ),
    ),
    e(ErrorLine, { error }),
    e(
      'table',
      { class: 'signer-list' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['signer', 'type', 'config (no secrets)'].map((t) => e('th', { scope: 'col' }, t)),
          e('th', { scope: 'col' }, e('span', { class: 'sr-only' }, 'actions')),
        ),
      ),
      e(
        'tbody',
        null,
        signers.map((s) =>
          e(
            'tr',
            { key: s.id, 'data-signer': s.id },
            e('td', { class: 'mono' }, s.id),
            e('td', null, s.type),
            e('td', { class: 'mono' }, Object.keys(s.config).length ? JSON.stringify(s.config) : '—'),
            e(
              'td',
              null,
              e(
                Action,
                {
                  name: 'delete',
                  class: 'danger',
                  allowed: may(me, 'signer', 'manage', s.id),
                  label: `Delete ${s.id}`,
                  onClick: () => setDeleting(s),
                },
                'Delete',
              ),
            ),
          ),
        ),
      ),
    ),
    signers.length === 0 ? e('p', { class: 'muted' }, 'No signer.') : null,
    creating
      ? e(CreateSigner, { onClose: () => setCreating(false), onDone: () => (setCreating(false), void load()) })
      : null,
    deleting
      ? e(
          Confirm,
          {
            title: `Delete signer ${deleting.id}?`,
            confirm: 'Delete it',
            onConfirm: () => void remove(deleting),
            onCancel: () => setDeleting(null),
          },
          e(
            'p',
            null,
            'Its key is gone from the store for good. While a relayer uses it, the API refuses and names the relayer.',
          ),
        )
      : null,
  );
}
