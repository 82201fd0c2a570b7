// The Relaybox operator console: sign in with an API key (kept in sessionStorage only), then the overview,
// transactions, plugins and webhooks pages. Hash routes (#/tx/<relayer>/<id>), so the server serves one page.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { api, session } from './api.ts';
import { mayAny, readOnly, type Area, type Me } from './access.ts';
import { ErrorLine, e } from './ui.ts';
import { Overview } from './views/overview.ts';
import { Transactions } from './views/transactions.ts';
import { Timeline } from './views/timeline.ts';
import { Plugins } from './views/plugins.ts';
import { Webhooks } from './views/webhooks.ts';
import { Keys } from './views/keys.ts';
import { Signers } from './views/signers.ts';

const go = (hash: string) => void (location.hash = hash);

function Login({ onIn }: { onIn: (me: Me) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    session.set(key.trim());
    try {
      onIn((await api<Me>('/api-keys/me')).data);
    } catch (err) {
      session.clear();
      setError(err);
    }
  };
  return e(
    'form',
    { class: 'login', onSubmit: submit },
    e('h1', null, 'Relaybox console'),
    e(
      'label',
      null,
      'API key',
      e('input', {
        type: 'password',
        name: 'api-key',
        autocomplete: 'off',
        value: key,
        onInput: (ev: Event) => setKey((ev.target as HTMLInputElement).value),
      }),
    ),
    e('button', { type: 'submit' }, 'Sign in'),
    e('p', { class: 'muted' }, 'Kept in this tab only (sessionStorage) and sent as a header; never in a URL.'),
    e(ErrorLine, { error }),
  );
}

function page(me: Me, route: string[]) {
  const [name, a, b] = route;
  if (name === 'transactions') return e(Transactions, { relayerId: a, go, key: a ?? '' });
  if (name === 'tx' && a && b) return e(Timeline, { me, relayerId: a, txId: b, key: `${a}/${b}` });
  if (name === 'plugins') return e(Plugins, { me, pluginId: a });
  if (name === 'webhooks') return e(Webhooks, { me });
  if (name === 'signers') return e(Signers, { me });
  if (name === 'keys') return e(Keys, { me });
  return e(Overview, { me });
}

/** The pages, each shown only to a key that may read something on it. */
const TABS: Array<[string, string, Area]> = [
  ['overview', 'Overview', 'relayer'],
  ['transactions', 'Transactions', 'relayer'],
  ['plugins', 'Plugins', 'plugin'],
  ['webhooks', 'Webhooks', 'notification'],
  ['signers', 'Signers', 'signer'],
  ['keys', 'API keys', 'api_key'],
];

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(Boolean(session.key()));
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    addEventListener('hashchange', onHash);
    if (session.key())
      api<Me>('/api-keys/me')
        .then(
          (a) => setMe(a.data),
          () => session.clear(),
        )
        .finally(() => setChecking(false));
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (checking) return e('p', { class: 'muted' }, 'Checking the key...');
  if (!me) return e(Login, { onIn: setMe });
  const route = hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((s) => decodeURIComponent(s));
  const tab = (id: string, label: string) => {
    const current = (route[0] || 'overview') === id || (id === 'transactions' && route[0] === 'tx');
    return e(
      'a',
      { href: `#/${id}`, class: current ? 'current' : '', 'aria-current': current ? 'page' : undefined },
      label,
    );
  };
  return e(
    'div',
    { class: 'shell' },
    e(
      'header',
      null,
      e('h1', { class: 'brand' }, 'Relaybox'),
      e(
        'nav',
        { 'aria-label': 'Pages' },
        TABS.filter(([, , area]) => area === 'relayer' || mayAny(me, area, 'read')).map(([id, label]) =>
          tab(id, label),
        ),
      ),
      e(
        'span',
        { class: 'who' },
        `${me.name}`,
        readOnly(me) ? e('span', { class: 'badge warn read-only' }, 'read-only') : null,
      ),
      e('button', { type: 'button', class: 'link', onClick: () => (session.clear(), setMe(null)) }, 'Sign out'),
    ),
    e('main', null, page(me, route)),
  );
}

render(e(App, null), document.getElementById('app')!);
