// Every mounted route × a set of scoped API keys: allowed, denied (403 in the envelope) or a filtered list, as
// docs/security.md's route table says. The routes come from the running app's router: a route without a row fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type TestServer } from '../helper.ts';
import { buildWithRelayers } from '../transactions/fixtures.ts';

type Action = 'read' | 'execute' | 'manage';
type Area = 'relayer' | 'plugin' | 'notification' | 'signer' | 'network' | 'api_key' | 'metrics';

/** What a route needs, stated here independently of src/domain/api-keys/permissions.ts. */
interface Row {
  /** The concrete request (ids filled in). */
  path: string;
  /** public: no key needed; self: any valid key (it reads its own rights). */
  area: Area | 'public' | 'self';
  action?: Action;
  /** The id the path names; null: it names none (only a wildcard key passes, or a list filters). */
  id?: string | null;
  list?: boolean;
  /** Also needs `signer:<signer>:execute`: the route makes this signer sign (or names it for a relayer). */
  signer?: string;
  body?: unknown;
  /** Further methods the same mounted route answers (the plugin call takes GET and POST). */
  methods?: string[];
}

const GONE = 'no-such-id';
const TX = '00000000-0000-4000-8000-000000000000';
const PLUGIN = (name: string) => `export async function handler() { return '${name}'; }`;

/** The table: `method express-path` → need. `keyId` is the id of an existing API key (its own rows read it). */
function table(keyId: string): Record<string, Row> {
  const r = (area: Area, action: Action, id: string | null, path: string, extra: Partial<Row> = {}): Row => ({
    area,
    action,
    id,
    path,
    ...extra,
  });
  const rel = '/api/v1/relayers';
  const pub = (path: string): Row => ({ area: 'public', path });
  return {
    'get /api/v1/health': pub('/api/v1/health'),
    'get /api/v1/ready': pub('/api/v1/ready'),
    'get /api/v1/openapi.json': pub('/api/v1/openapi.json'),
    'get /docs': pub('/docs'),
    'get /docs/initializer.js': pub('/docs/initializer.js'),
    'get /docs/:asset': pub('/docs/swagger-ui.css'),
    'get /metrics': r('metrics', 'read', null, '/metrics'),
    'get /metrics/:metric_name': r(
      'metrics',
      'read',
      'relaybox_http_requests_total',
      '/metrics/relaybox_http_requests_total',
    ),
    'get /debug/metrics/scrape': r('metrics', 'read', null, '/debug/metrics/scrape'),
    'get /api/v1/metrics': r('metrics', 'read', null, '/api/v1/metrics'),
    'get /api/v1/metrics/:metric_name': r(
      'metrics',
      'read',
      'relaybox_http_requests_total',
      '/api/v1/metrics/relaybox_http_requests_total',
    ),
    'get /api/v1/debug/metrics/scrape': r('metrics', 'read', null, '/api/v1/debug/metrics/scrape'),
    'get /api/v1/relayers': r('relayer', 'read', 'evm', rel, { list: true }),
    // Incomplete body: an allowed key gets 400, nothing is created.
    'post /api/v1/relayers': r('relayer', 'manage', null, rel, {
      signer: 'evm-signer',
      body: { id: 'new-relayer', signer_id: 'evm-signer' },
    }),
    'get /api/v1/relayers/:relayer_id': r('relayer', 'read', 'evm', `${rel}/evm`),
    'patch /api/v1/relayers/:relayer_id': r('relayer', 'manage', 'evm', `${rel}/evm`, { body: {} }),
    'delete /api/v1/relayers/:relayer_id': r('relayer', 'manage', GONE, `${rel}/${GONE}`),
    'get /api/v1/relayers/:relayer_id/status': r('relayer', 'read', GONE, `${rel}/${GONE}/status`),
    'get /api/v1/relayers/:relayer_id/balance': r('relayer', 'read', GONE, `${rel}/${GONE}/balance`),
    'post /api/v1/relayers/:relayer_id/rpc': r('relayer', 'execute', 'solana', `${rel}/solana/rpc`, {
      signer: 'solana-signer',
      body: { jsonrpc: '2.0', id: 1, method: 'signTransaction', params: {} },
    }),
    'post /api/v1/relayers/:relayer_id/sign': r('relayer', 'execute', 'evm', `${rel}/evm/sign`, {
      signer: 'evm-signer',
      body: {},
    }),
    'post /api/v1/relayers/:relayer_id/sign-typed-data': r('relayer', 'execute', 'evm', `${rel}/evm/sign-typed-data`, {
      signer: 'evm-signer',
      body: {},
    }),
    'post /api/v1/relayers/:relayer_id/sign-transaction': r(
      'relayer',
      'execute',
      'stellar',
      `${rel}/stellar/sign-transaction`,
      { signer: 'stellar-signer', body: {} },
    ),
    'get /api/v1/relayers/:relayer_id/transactions': r('relayer', 'read', 'evm', `${rel}/evm/transactions`),
    'post /api/v1/relayers/:relayer_id/transactions': r('relayer', 'execute', 'evm', `${rel}/evm/transactions`, {
      body: {},
    }),
    // Incomplete bodies: an allowed key gets 400, nothing is quoted or built.
    'post /api/v1/relayers/:relayer_id/transactions/sponsored/quote': r(
      'relayer',
      'execute',
      'stellar',
      `${rel}/stellar/transactions/sponsored/quote`,
      { body: {} },
    ),
    'post /api/v1/relayers/:relayer_id/transactions/sponsored/build': r(
      'relayer',
      'execute',
      'stellar',
      `${rel}/stellar/transactions/sponsored/build`,
      { body: {} },
    ),
    'get /api/v1/relayers/:relayer_id/transactions/by-nonce/:nonce': r(
      'relayer',
      'read',
      'evm',
      `${rel}/evm/transactions/by-nonce/999`,
    ),
    'delete /api/v1/relayers/:relayer_id/transactions/pending': r(
      'relayer',
      'execute',
      GONE,
      `${rel}/${GONE}/transactions/pending`,
    ),
    'get /api/v1/relayers/:relayer_id/transactions/:transaction_id': r(
      'relayer',
      'read',
      'evm',
      `${rel}/evm/transactions/${TX}`,
    ),
    'get /api/v1/relayers/:relayer_id/transactions/:transaction_id/timeline': r(
      'relayer',
      'read',
      'evm',
      `${rel}/evm/transactions/${TX}/timeline`,
    ),
    'get /api/v1/relayers/:relayer_id/activity': r('relayer', 'read', 'evm', `${rel}/evm/activity`),
    // Naming a relayer that does not exist: an allowed key gets 404 rather than a stream that never ends.
    'get /api/v1/events': r('relayer', 'read', GONE, `/api/v1/events?relayer_id=${GONE}`),
    'put /api/v1/relayers/:relayer_id/transactions/:transaction_id': r(
      'relayer',
      'execute',
      'evm',
      `${rel}/evm/transactions/${TX}`,
      { body: {} },
    ),
    'delete /api/v1/relayers/:relayer_id/transactions/:transaction_id': r(
      'relayer',
      'execute',
      'evm',
      `${rel}/evm/transactions/${TX}`,
    ),
    'get /api/v1/plugins': r('plugin', 'read', 'alpha', '/api/v1/plugins', { list: true }),
    'get /api/v1/plugins/:plugin_id': r('plugin', 'read', 'alpha', '/api/v1/plugins/alpha'),
    'patch /api/v1/plugins/:plugin_id': r('plugin', 'manage', GONE, `/api/v1/plugins/${GONE}`, { body: {} }),
    'get /api/v1/plugins/:plugin_id/calls': r('plugin', 'read', 'alpha', '/api/v1/plugins/alpha/calls'),
    'all /api/v1/plugins/:plugin_id/call{/*route}': r('plugin', 'execute', GONE, `/api/v1/plugins/${GONE}/call`, {
      methods: ['get', 'post'],
      body: {},
    }),
    'post /api/v1/notifications': r('notification', 'manage', null, '/api/v1/notifications', { body: {} }),
    'get /api/v1/notifications': r('notification', 'read', 'hook-a', '/api/v1/notifications', { list: true }),
    'get /api/v1/notifications/:id': r('notification', 'read', 'hook-a', '/api/v1/notifications/hook-a'),
    'patch /api/v1/notifications/:id': r('notification', 'manage', GONE, `/api/v1/notifications/${GONE}`, {
      body: { url: 'https://example.com/x' },
    }),
    'delete /api/v1/notifications/:id': r('notification', 'manage', GONE, `/api/v1/notifications/${GONE}`),
    'get /api/v1/notifications/:id/deliveries': r(
      'notification',
      'read',
      'hook-a',
      '/api/v1/notifications/hook-a/deliveries',
    ),
    'post /api/v1/notifications/:id/test': r('notification', 'execute', 'hook-a', '/api/v1/notifications/hook-a/test'),
    'post /api/v1/notifications/:id/deliveries/:event_id/retry': r(
      'notification',
      'execute',
      'hook-a',
      `/api/v1/notifications/hook-a/deliveries/${TX}/retry`,
    ),
    'get /api/v1/signers': r('signer', 'read', 'evm-signer', '/api/v1/signers', { list: true }),
    'post /api/v1/signers': r('signer', 'manage', null, '/api/v1/signers', { body: {} }),
    'get /api/v1/signers/:signer_id': r('signer', 'read', 'evm-signer', '/api/v1/signers/evm-signer'),
    'patch /api/v1/signers/:signer_id': r('signer', 'manage', GONE, `/api/v1/signers/${GONE}`, { body: {} }),
    'delete /api/v1/signers/:signer_id': r('signer', 'manage', GONE, `/api/v1/signers/${GONE}`),
    'get /api/v1/networks': r('network', 'read', 'evm:sepolia', '/api/v1/networks', { list: true }),
    'get /api/v1/networks/:network_id': r('network', 'read', 'evm:sepolia', '/api/v1/networks/evm:sepolia'),
    'patch /api/v1/networks/:network_id': r('network', 'manage', 'evm:nowhere', '/api/v1/networks/evm:nowhere', {
      body: {},
    }),
    // A permission within api_key:*: — an allowed creator mints it.
    'post /api/v1/api-keys': r('api_key', 'manage', null, '/api/v1/api-keys', {
      body: { name: 'minted', permissions: [`api_key:${keyId}:read`] },
    }),
    'get /api/v1/api-keys': r('api_key', 'read', keyId, '/api/v1/api-keys', { list: true }),
    'get /api/v1/api-keys/me': { area: 'self', path: '/api/v1/api-keys/me' },
    'get /api/v1/api-keys/:api_key_id/permissions': r(
      'api_key',
      'read',
      keyId,
      `/api/v1/api-keys/${keyId}/permissions`,
    ),
    'delete /api/v1/api-keys/:api_key_id': r('api_key', 'manage', GONE, `/api/v1/api-keys/${GONE}`),
  };
}

/** Every route the app serves: [method, express path]; an `all` route counts when no method route shares its path (not a 405 catch-all). */
function mountedRoutes(stack: any[], prefix = ''): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const layer of stack) {
    if (layer.route)
      for (const method of Object.keys(layer.route.methods))
        out.push([method, prefix + (layer.route.path === '/' ? '' : layer.route.path)]);
    else if (layer.handle?.stack)
      out.push(
        ...mountedRoutes(
          layer.handle.stack,
          prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''),
        ),
      );
  }
  const withMethods = new Set(out.filter(([m]) => m !== '_all').map(([, p]) => p));
  return out.filter(([m, p]) => m !== '_all' || !withMethods.has(p)).map(([m, p]) => [m === '_all' ? 'all' : m, p]);
}

const RANK: Record<Action, number> = { read: 0, execute: 1, manage: 2 };

interface Key {
  name: string;
  permissions: string[] | 'admin';
  /** Expected: 'allowed', 'denied', or for a list the ids it answers ('all': every one). */
  expect: 'allowed' | 'denied' | string[] | 'all';
}

/** The keys tried on a row, each with what the table says it may do there. */
function keysFor(row: Row): Key[] {
  if (row.area === 'public' || row.area === 'self')
    return [
      { name: 'none', permissions: ['nothing'], expect: 'allowed' },
      { name: 'admin', permissions: 'admin', expect: 'allowed' },
    ];
  const { area, action = 'read', id = null } = row;
  const scoped = (a: Action): Key['expect'] => {
    if (row.list) return [id!];
    return id !== null && RANK[a] >= RANK[action] && !row.signer ? 'allowed' : 'denied';
  };
  const keys: Key[] = [
    { name: 'none', permissions: ['nothing'], expect: 'denied' },
    { name: 'other one', permissions: [`${area}:someone-else:manage`], expect: row.list ? [] : 'denied' },
    { name: 'read one', permissions: [`${area}:${id ?? 'x'}:read`], expect: scoped('read') },
    { name: 'execute one', permissions: [`${area}:${id ?? 'x'}:execute`], expect: scoped('execute') },
    { name: 'manage one', permissions: [`${area}:${id ?? 'x'}:manage`], expect: scoped('manage') },
    {
      name: 'manage all',
      permissions: [`${area}:all:manage`],
      expect: row.list ? 'all' : row.signer ? 'denied' : 'allowed',
    },
    { name: 'admin', permissions: 'admin', expect: row.list ? 'all' : 'allowed' },
  ];
  if (row.signer) {
    keys.push({ name: 'signer only', permissions: [`signer:${row.signer}:manage`], expect: 'denied' });
    keys.push({
      name: 'resource + signer',
      permissions: [`${area}:${id ?? 'all'}:${action}`, `signer:${row.signer}:execute`],
      expect: 'allowed',
    });
  }
  return keys;
}

async function secretFor(s: TestServer, cache: Map<string, string>, permissions: string[]): Promise<string> {
  const known = cache.get(JSON.stringify(permissions));
  if (known) return known;
  const created = await s.request('POST', '/api/v1/api-keys', {
    body: { name: `matrix ${permissions.join(' ')}`, permissions },
  });
  assert.equal(created.status, 201, created.text);
  cache.set(JSON.stringify(permissions), created.body.data.value);
  return created.body.data.value;
}

function check(label: string, key: Key, res: { status: number; body: any; text: string }): void {
  if (key.expect === 'denied') {
    assert.equal(res.status, 403, `${label}: expected 403, got ${res.status} ${res.text.slice(0, 200)}`);
    assert.equal(res.body.success, false, `${label}: the envelope`);
    assert.match(
      `${res.body.message} ${res.body.error}`,
      /Forbidden|no permission/,
      `${label}: the FORBIDDEN envelope`,
    );
    return;
  }
  assert.ok(
    ![401, 403].includes(res.status),
    `${label}: expected allowed, got ${res.status} ${res.text.slice(0, 200)}`,
  );
  if (key.expect === 'allowed') return;
  assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 200)}`);
  const ids = (res.body.data as Array<{ id: string }>).map((x) => x.id);
  if (key.expect === 'all') assert.ok(ids.length >= 2, `${label}: an all key sees every item (${ids})`);
  else {
    assert.deepEqual(ids, key.expect, `${label}: filtered to the key's ids`);
    assert.equal(res.body.pagination.total_items, key.expect.length, `${label}: the total counts only the key's ids`);
  }
}

test('every route × scoped keys: allowed, 403 in the envelope, or a list filtered to the key', async (t) => {
  const s = await buildWithRelayers(t, { plugins: { 'alpha.ts': PLUGIN('alpha'), 'beta.ts': PLUGIN('beta') } });
  // A second of each listed resource, so that a filtered list visibly leaves one out.
  assert.equal(
    (
      await s.request('POST', '/api/v1/notifications', {
        body: { id: 'hook-b', url: 'https://example.com/b?token=t0ps3cret' },
      })
    ).status,
    201,
  );
  const target = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'target', permissions: ['relayer:evm:read'] },
  });
  const rows = table(target.body.data.id);
  const mounted = mountedRoutes((s.app.express as any).router.stack).map(([m, p]) => `${m} ${p}`);
  for (const route of mounted)
    assert.ok(rows[route], `${route} is mounted but has no row in the route matrix (nor in docs/security.md)`);
  for (const route of Object.keys(rows)) assert.ok(mounted.includes(route), `${route} has a row but is not mounted`);

  const cache = new Map<string, string>();
  let cells = 0;
  for (const [route, row] of Object.entries(rows)) {
    const method = route.split(' ')[0]!;
    for (const m of row.methods ?? [method]) {
      for (const key of keysFor(row)) {
        const auth = key.permissions === 'admin' ? undefined : `Bearer ${await secretFor(s, cache, key.permissions)}`;
        const body = m === 'get' || m === 'delete' ? undefined : row.body;
        const res = await request(s.url, m.toUpperCase(), row.path, { ...(auth ? { auth } : {}), body });
        check(`${m.toUpperCase()} ${row.path} as '${key.name}'`, key, res);
        cells++;
      }
    }
  }
  t.diagnostic(`${Object.keys(rows).length} routes, ${cells} route × key cells`);
});
