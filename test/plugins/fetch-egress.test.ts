// fetch inside the sandbox under the plugin's egress policy (`allowed_origins` in its config entry; none by default),
// against local HTTP servers started here: allowed and refused origins, redirects, oversized bodies, a server that
// never answers, aborts, traces, and what the outgoing request carries.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { API_KEY, build } from '../helper.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function serve(
  t: TestContext,
  handler: (req: IncomingMessage, body: string, res: import('node:http').ServerResponse) => void,
): Promise<{ origin: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as import('node:net').AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, seen, server };
}

const FETCHER = `
export const settings = { emit_traces: true };
export async function handler({ params, headers }) {
  const init = { method: params.method ?? 'GET', headers: { 'x-plugin': 'yes', ...(params.forward ? headers : {}) } };
  if (params.body !== undefined) init.body = params.body;
  if (params.abortAfter !== undefined) { const c = new AbortController(); setTimeout(() => c.abort(), params.abortAfter); init.signal = c.signal; }
  try {
    const res = await fetch(params.url, init);
    const text = await res.text();
    return { status: res.status, ok: res.ok, type: res.headers.get('content-type'), text: text.slice(0, 200), length: text.length, redirected: res.redirected, url: res.url };
  } catch (e) {
    return { error: e.name, code: e.code ?? null, status: e.status ?? null, message: e.message };
  }
}`;

const call = (s: Awaited<ReturnType<typeof build>>, params: unknown) =>
  s.request('POST', '/api/v1/plugins/fetcher/call', { body: { params } });

test('fetch reaches an allowed origin and nothing else; the default policy allows none', async (t) => {
  const allowed = await serve(t, (req, body, res) => {
    if (req.url === '/hop') {
      res.writeHead(302, { location: other.origin + '/x' }).end();
      return;
    }
    if (req.url === '/inside') {
      res.writeHead(301, { location: '/json' }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body, path: req.url }));
  });
  const other = await serve(t, (_req, _body, res) => res.end('should never be reached'));
  const s = await build(t, {
    plugins: { 'fetcher.ts': FETCHER, 'closed.ts': FETCHER },
    config: { plugins: [{ id: 'fetcher', allowed_origins: [allowed.origin] }] } as never,
  });

  const ok = await call(s, { url: `${allowed.origin}/json?secret=abc`, method: 'POST', body: 'hello' });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body.data, {
    status: 200,
    ok: true,
    type: 'application/json',
    text: JSON.stringify({ echo: 'hello', path: '/json?secret=abc' }),
    length: 42,
    redirected: false,
    url: `${allowed.origin}/json?secret=abc`,
  });
  // Traced without the query string (it may carry the plugin's own secrets).
  assert.deepEqual(ok.body.metadata.traces.at(-1).payload, {
    method: 'POST',
    url: `${allowed.origin}/json`,
    status: 200,
    bytes: 42,
  });

  const denied = await call(s, { url: `${other.origin}/x` });
  assert.equal(denied.body.data.code, 'EGRESS_DENIED');
  assert.equal(denied.body.data.status, 403);
  assert.match(
    denied.body.data.message,
    new RegExp(`fetch to ${other.origin} refused by this plugin's egress policy: it may reach only ${allowed.origin}`),
  );

  const viaRedirect = await call(s, { url: `${allowed.origin}/hop` });
  assert.equal(viaRedirect.body.data.code, 'EGRESS_DENIED', 'every redirect hop is checked');
  const inside = await call(s, { url: `${allowed.origin}/inside` });
  assert.equal(inside.body.data.redirected, true);
  assert.equal(other.seen.length, 0, 'the refused origin never saw a request');

  const closed = await s.request('POST', '/api/v1/plugins/closed/call', {
    body: { params: { url: `${allowed.origin}/json` } },
  });
  assert.equal(closed.body.data.code, 'EGRESS_DENIED');
  assert.match(closed.body.data.message, /it may reach no origin/);

  const file = await call(s, { url: 'file:///etc/passwd' });
  assert.equal(file.body.data.code, 'EGRESS_DENIED');
});

test('an uncaught refused fetch answers 403 EGRESS_DENIED', async (t) => {
  const s = await build(t, {
    plugins: { 'bare.ts': `export async function handler() { return (await fetch('http://127.0.0.1:9/')).status; }` },
  });
  const res = await s.request('POST', '/api/v1/plugins/bare/call', { body: {} });
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.data.code, 'EGRESS_DENIED');
});

test('the outgoing request carries only what the plugin set: never our API key', async (t) => {
  const target = await serve(t, (_req, _body, res) => res.end('ok'));
  const s = await build(t, {
    plugins: { 'fetcher.ts': FETCHER },
    config: { plugins: [{ id: 'fetcher', allowed_origins: [target.origin] }] } as never,
  });
  const res = await call(s, { url: target.origin + '/', forward: true });
  assert.equal(res.body.data.status, 200, res.text);
  const sent = JSON.stringify(target.seen[0]!.headers);
  assert.equal(target.seen[0]!.headers['x-plugin'], 'yes');
  assert.ok(!sent.includes(API_KEY), 'the API key never leaves with a plugin request');
  assert.equal(target.seen[0]!.headers.authorization, undefined);
  assert.equal(target.seen[0]!.headers.cookie, undefined);
});

test('fetch bodies are bounded both ways', async (t) => {
  const big = await serve(t, (req, _body, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
      res.end(Buffer.alloc(5 * 1024 * 1024));
      return;
    }
    // No content-length: the runtime counts as it reads and stops at the cap.
    res.writeHead(200, { 'transfer-encoding': 'chunked' });
    const chunk = Buffer.alloc(64 * 1024, 97);
    for (let i = 0; i < 80; i++) res.write(chunk);
    res.end();
  });
  const s = await build(t, {
    plugins: { 'fetcher.ts': FETCHER },
    config: { plugins: [{ id: 'fetcher', allowed_origins: [big.origin] }] } as never,
  });
  for (const path of ['/declared', '/streamed']) {
    const res = await call(s, { url: big.origin + path });
    assert.equal(res.body.data.code, 'FETCH_RESPONSE_TOO_LARGE', `${path}: ${res.text}`);
  }
  const upload = await call(s, { url: big.origin + '/', method: 'POST', body: 'x'.repeat(800 * 1024) });
  assert.equal(upload.body.data.code, 'FETCH_BODY_TOO_LARGE');
  assert.equal(big.seen.filter((r) => r.method === 'POST').length, 0, 'refused before it left the sandbox');
});

test('a server that never answers: the fetch ends at the call deadline; an AbortSignal ends it sooner', async (t) => {
  const silent = await serve(t, () => {
    /* never answers */
  });
  const slowPlugin = FETCHER.replace(
    'export const settings = { emit_traces: true };',
    'export const settings = { emit_traces: true, timeout: 1 };',
  );
  const s = await build(t, {
    plugins: { 'fetcher.ts': slowPlugin },
    config: { plugins: [{ id: 'fetcher', allowed_origins: [silent.origin] }] } as never,
  });
  // The hung call first: it also loads the plugin, so the aborted call's second of deadline is all its own.
  const hung = await call(s, { url: silent.origin + '/' });
  assert.equal(hung.status, 504, hung.text);
  assert.equal(hung.body.data.code, 'TIMEOUT');
  const aborted = await call(s, { url: silent.origin + '/', abortAfter: 50 });
  assert.equal(aborted.body.data.error, 'AbortError', aborted.text);
});

test("the real SDK's HTTP clients (axios, its fetch adapter) work through fetch, under the same policy", async (t) => {
  const relayerApi = await serve(t, (req, _body, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ success: true, data: { id: 'abc', path: req.url, auth: req.headers.authorization ?? null } }),
    );
  });
  const plugin = `import { RelayersApi, Configuration } from '@openzeppelin/relayer-sdk';
export async function handler({ params }) {
  const api = new RelayersApi(new Configuration({ basePath: params.origin, accessToken: 'its-own-token' }));
  try { return (await api.getRelayer('abc')).data; } catch (e) { return { error: e.message, code: e.cause?.code ?? e.code ?? null }; }
}`;
  const s = await build(t, {
    plugins: { 'client.ts': plugin, 'closed.ts': plugin },
    config: { plugins: [{ id: 'client', allowed_origins: [relayerApi.origin] }] } as never,
  });
  const res = await s.request('POST', '/api/v1/plugins/client/call', {
    body: { params: { origin: relayerApi.origin } },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, {
    success: true,
    data: { id: 'abc', path: '/api/v1/relayers/abc', auth: 'Bearer its-own-token' },
  });
  const closed = await s.request('POST', '/api/v1/plugins/closed/call', {
    body: { params: { origin: relayerApi.origin } },
  });
  assert.match(closed.body.data.error, /refused by this plugin's egress policy/);
  assert.equal(relayerApi.seen.length, 1);
});
