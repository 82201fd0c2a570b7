// The relayer dialogs: create one (id, name, network, signer, notification, policies, paused) and edit one (name,
// notification, policies). Each is one API call with the signed-in key; a refusal is shown as the API's message.
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.ts';
import { mayAny, type Me } from '../access.ts';
import { Check, Field, FormDialog, e } from '../ui.ts';

export interface Relayer {
  id: string;
  name: string;
  network: string;
  network_type: string;
  address: string;
  paused: boolean;
  signer_id?: string;
  notification_id?: string | null;
  system_disabled?: boolean;
  disabled_reason?: { type: string; details: unknown } | null;
  policies?: Record<string, unknown> | null;
}
interface Network {
  id: string;
  name: string;
  network_type: string;
}

/** The ids of a list the key may read, or null when it may read none (the field is then typed in). */
function useIds<T>(
  me: Me,
  area: 'notification' | 'signer' | 'network',
  path: string,
  pick: (item: T) => string,
): string[] | null {
  const [ids, setIds] = useState<string[] | null>(null);
  useEffect(() => {
    if (mayAny(me, area, 'read'))
      api<T[]>(`${path}?per_page=100`).then(
        (a) => setIds(a.data.map(pick)),
        () => setIds(null),
      );
  }, []);
  return ids;
}

/** `''` is no policies (null); anything else must be a JSON object. */
function parsePolicies(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`policies are not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('policies must be a JSON object, e.g. {"min_balance": 0}');
  return value as Record<string, unknown>;
}

function NotificationField({ me, value, set }: { me: Me; value: string; set: (v: string) => void }) {
  const ids = useIds<{ id: string }>(me, 'notification', '/notifications', (n) => n.id);
  if (!ids) return e(Field, { label: 'Notification id (empty: none)', name: 'notification_id', value, set });
  const options: Array<[string, string]> = [['', '(none)'], ...ids.map((id): [string, string] => [id, id])];
  if (value && !ids.includes(value)) options.push([value, value]);
  return e(Field, { label: 'Notification', name: 'notification_id', kind: 'select', value, set, options });
}

export function RelayerDialog({
  me,
  relayer,
  onClose,
  onDone,
}: {
  me: Me;
  relayer: Relayer | null;
  onClose: () => void;
  onDone: () => void;
}) {
  return relayer ? e(EditRelayer, { me, relayer, onClose, onDone }) : e(CreateRelayer, { me, onClose, onDone });
}

function EditRelayer({
  me,
  relayer,
  onClose,
  onDone,
}: {
  me: Me;
  relayer: Relayer;
  onClose: () => void;
  onDone: () => void;
}) {
  const initialPolicies = relayer.policies ? JSON.stringify(relayer.policies, null, 2) : '';
  const [name, setName] = useState(relayer.name);
  const [notification, setNotification] = useState(relayer.notification_id ?? '');
  const [policies, setPolicies] = useState(initialPolicies);
  const submit = async () => {
    const body: Record<string, unknown> = {};
    if (name !== relayer.name) body.name = name;
    if (notification !== (relayer.notification_id ?? ''))
      body.notification_id = notification === '' ? null : notification;
    if (policies !== initialPolicies) body.policies = parsePolicies(policies);
    if (Object.keys(body).length > 0) await api(`/relayers/${enc(relayer.id)}`, { method: 'PATCH', body });
    onDone();
  };
  return e(
    FormDialog,
    { title: `Edit relayer ${relayer.id}`, name: 'edit-relayer', submit, onClose },
    e(Field, { label: 'Name', name: 'name', value: name, set: setName, required: true, autofocus: true }),
    e(NotificationField, { me, value: notification, set: setNotification }),
    e(Field, {
      label: 'Policies (JSON object; empty: none)',
      name: 'policies',
      kind: 'textarea',
      value: policies,
      set: setPolicies,
      hint: 'EVM: min_balance (wei), gas_price_cap, whitelist_receivers, eip1559_pricing, private_transactions, ...',
    }),
  );
}

function CreateRelayer({ me, onClose, onDone }: { me: Me; onClose: () => void; onDone: () => void }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [network, setNetwork] = useState('');
  const [signer, setSigner] = useState('');
  const [notification, setNotification] = useState('');
  const [policies, setPolicies] = useState('');
  const [paused, setPaused] = useState(false);
  const networks = useIds<Network>(me, 'network', '/networks', (n) => `${n.network_type}:${n.name}`);
  const signers = useIds<{ id: string }>(me, 'signer', '/signers', (s) => s.id);
  useEffect(() => void (networks?.[0] && !network && setNetwork(networks[0])), [networks]);
  useEffect(() => void (signers?.[0] && !signer && setSigner(signers[0])), [signers]);
  const submit = async () => {
    const at = network.indexOf(':');
    if (at <= 0) throw new Error('network: give it as <type>:<name>, e.g. evm:sepolia');
    const body: Record<string, unknown> = {
      name,
      network: network.slice(at + 1),
      network_type: network.slice(0, at),
      paused,
      signer_id: signer,
    };
    if (id.trim()) body.id = id.trim();
    if (notification) body.notification_id = notification;
    const parsed = parsePolicies(policies);
    if (parsed) body.policies = parsed;
    await api('/relayers', { method: 'POST', body });
    onDone();
  };
  const pick = (
    label: string,
    field: string,
    ids: string[] | null,
    value: string,
    set: (v: string) => void,
    hint: string,
  ) =>
    ids
      ? e(Field, { label, name: field, kind: 'select', value, set, options: ids.map((v): [string, string] => [v, v]) })
      : e(Field, { label, name: field, value, set, required: true, hint });
  return e(
    FormDialog,
    { title: 'New relayer', name: 'new-relayer', submit, onClose, label: 'Create' },
    e(Field, { label: 'Id (empty: a new UUID)', name: 'id', value: id, set: setId, autofocus: true }),
    e(Field, { label: 'Name', name: 'name', value: name, set: setName, required: true }),
    pick('Network', 'network', networks, network, setNetwork, '<type>:<name>, e.g. evm:sepolia'),
    pick('Signer', 'signer_id', signers, signer, setSigner, 'the id of an existing signer'),
    e(NotificationField, { me, value: notification, set: setNotification }),
    e(Field, {
      label: 'Policies (JSON object; empty: none)',
      name: 'policies',
      kind: 'textarea',
      value: policies,
      set: setPolicies,
    }),
    e(Check, { label: 'Paused (sends nothing until resumed)', name: 'paused', checked: paused, set: setPaused }),
  );
}
