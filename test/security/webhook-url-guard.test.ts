// The URL guard on webhook URLs given through the API: metadata always refused, loopback and private addresses while
// WEBHOOK_BLOCK_PRIVATE_IPS is on (off by default), checked when given and again at every delivery's connect (DNS rebinding); redirects
// are never followed; the config file's notifications stay trusted.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from '../helper.ts';
import {
  FAST_WEBHOOKS,
  emit,
  pointRelayer,
  startReceiver,
  txRecord,
  waitFor,
  waitForFailedDelivery,
} from '../webhooks/support.ts';

/** One attempt, so a refused delivery is failed at once; private addresses refused. */
const ONE_ATTEMPT = { ...FAST_WEBHOOKS, WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_BLOCK_PRIVATE_IPS: 'true' };

test('webhook URLs given through the API: metadata always refused, loopback and private while WEBHOOK_BLOCK_PRIVATE_IPS is on', async (t) => {
  // RPC_ALLOWED_HOSTS lists RPC providers: it does not restrict webhook receivers; RPC_BLOCK_PRIVATE_IPS does not apply.
  const s = await build(t, {
    env: { RPC_ALLOWED_HOSTS: 'rpc.example', RPC_BLOCK_PRIVATE_IPS: 'false', WEBHOOK_BLOCK_PRIVATE_IPS: 'true' },
  });
  const cases: Array<[string, RegExp]> = [
    [
      'http://169.254.169.254/latest/meta-data',
      /host '169\.254\.169\.254' is a cloud metadata address .*: always refused$/,
    ],
    [
      'http://127.0.0.1:9000/hook',
      /host '127\.0\.0\.1' is a loopback address .*: refused while WEBHOOK_BLOCK_PRIVATE_IPS is on$/,
    ],
    ['http://10.1.2.3/hook', /host '10\.1\.2\.3' is a private address/],
    ['http://[::ffff:169.254.169.254]/', /is a cloud metadata address/],
    ['http://localhost:3000/hook', /host 'localhost' names an internal host/],
  ];
  for (const [url, reason] of cases) {
    const created = await s.request('POST', '/api/v1/notifications', { body: { id: 'hook', url } });
    assert.equal(created.status, 400, `${url}: ${created.text}`);
    assert.equal(created.body.success, false);
    assert.match(created.body.error, /^'url': webhook URL refused: /);
    assert.match(created.body.error, reason);
  }
  assert.equal((await s.request('GET', '/api/v1/notifications/hook')).status, 404, 'nothing refused was stored');

  assert.equal(
    (await s.request('POST', '/api/v1/notifications', { body: { id: 'hook', url: 'https://203.0.113.10/hook' } }))
      .status,
    201,
  );
  const patched = await s.request('PATCH', '/api/v1/notifications/hook', { body: { url: 'http://169.254.169.254/' } });
  assert.equal(patched.status, 400, patched.text);
  assert.match(
    patched.body.error,
    /^'url': webhook URL refused: host '169\.254\.169\.254' is a cloud metadata address/,
  );
  assert.equal((await s.request('GET', '/api/v1/notifications/hook')).body.data.url, 'https://203.0.113.10/hook');

  // By default (and with RPC_BLOCK_PRIVATE_IPS on) a receiver on loopback is allowed: it is usually the team's own service.
  const open = await build(t, { env: { RPC_BLOCK_PRIVATE_IPS: 'true' } });
  assert.equal(
    (await open.request('POST', '/api/v1/notifications', { body: { id: 'local', url: 'http://127.0.0.1:9000/hook' } }))
      .status,
    201,
  );
  const metadata = await open.request('POST', '/api/v1/notifications', {
    body: { id: 'meta', url: 'http://169.254.169.254/' },
  });
  assert.equal(metadata.status, 400);
  assert.match(metadata.body.error, /cloud metadata address .*always refused/);
});

test('DNS rebinding: a receiver name public when given and loopback at delivery is refused at connect; nothing reaches it', async (t) => {
  const receiver = await startReceiver(t);
  let answer = '203.0.113.5';
  const s = await build(t, { env: ONE_ATTEMPT, resolveHost: async () => [{ address: answer, family: 4 }] });
  const url = `http://hooks.example:${new URL(receiver.url).port}/hook`;
  const created = await s.request('POST', '/api/v1/notifications', { body: { id: 'rebind', url } });
  assert.equal(created.status, 201, created.text);

  answer = '127.0.0.1';
  pointRelayer(s.app.db, 'hook-relayer', 'rebind');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const failed = await waitForFailedDelivery(s, 'rebind');
  assert.match(
    failed.last_error,
    /host 'hooks\.example' resolves to 127\.0\.0\.1, a loopback address .*WEBHOOK_BLOCK_PRIVATE_IPS/,
  );
  assert.equal(receiver.received.length, 0, 'no request reached the loopback receiver');
});

/** A stand-in for a public receiver that redirects inward: every request gets `status` with Location `to`. */
async function startRedirector(t: TestContext, status: number, to: string) {
  const state = { hits: 0, url: '' };
  const server = http.createServer((req, res) => {
    state.hits += 1;
    req.resume().on('end', () => res.writeHead(status, { location: to }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  state.url = `http://public-hooks.example:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

test('a receiver that redirects (here to loopback) is not followed: the 3xx is a failed delivery', async (t) => {
  const inner = await startReceiver(t);
  // WEBHOOK_BLOCK_PRIVATE_IPS off, so the guard itself would let the redirect through: only the redirect rule stops it.
  const s = await build(t, {
    env: { ...ONE_ATTEMPT, WEBHOOK_BLOCK_PRIVATE_IPS: 'false' },
    resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  for (const [id, status] of [
    ['moved', 307],
    ['found', 302],
  ] as const) {
    const redirector = await startRedirector(t, status, inner.url);
    assert.equal((await s.request('POST', '/api/v1/notifications', { body: { id, url: redirector.url } })).status, 201);
    pointRelayer(s.app.db, `relayer-${id}`, id);
    await emit(s.app.store, txRecord(`relayer-${id}`, `tx-${id}`));
    const failed = await waitForFailedDelivery(s, id);
    assert.equal(failed.last_error, `receiver answered HTTP ${status}`);
    assert.equal(redirector.hits, 1, 'the redirecting receiver was reached through the guarded client');
  }
  assert.equal(inner.received.length, 0, 'the redirect target never got a request');
});

test("a config-file notification on loopback is the operator's: delivered with WEBHOOK_BLOCK_PRIVATE_IPS on", async (t) => {
  const receiver = await startReceiver(t);
  const s = await build(t, {
    env: { ...FAST_WEBHOOKS, WEBHOOK_BLOCK_PRIVATE_IPS: 'true' },
    config: { notifications: [{ id: 'operator-hook', url: receiver.url }] },
  });
  pointRelayer(s.app.db, 'hook-relayer', 'operator-hook');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  await waitFor(
    async () =>
      (await s.request('GET', '/api/v1/notifications/operator-hook/deliveries')).body.data[0]?.status === 'delivered',
    'delivery',
  );
  assert.equal(receiver.received.length, 1);
});
