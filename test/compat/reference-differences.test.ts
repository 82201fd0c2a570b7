// Smaller differences the reference's own material shows (issue 24), each driven against the running service, with the
// reference's client where it has a method: readiness, public paths, notification and plugin updates, the Invalid JSON
// text, the plugin listing of a plugin's folder, and EVM addresses with a wrong EIP-55 checksum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Configuration, HealthApi, NotificationsApi, PluginsApi } from '@openzeppelin/relayer-sdk';
import { API_KEY, build } from '../helper.ts';
import { buildWithRelayers, evmBody } from '../transactions/fixtures.ts';

/** The basic-example-plugin README's destination: mixed case with a wrong EIP-55 checksum. */
const README_ADDRESS = '0x742d35Cc6640C21a1c7656d2c9C8F6bF5e7c3F8A';
const CHECKSUMMED = '0x742D35cC6640C21A1C7656D2C9c8F6bf5E7C3F8A';
const ECHO = `export async function handler(context) { return context.params ?? null; }`;

/** The status and body of a request the client refused (axios throws on a non-2xx answer). */
async function failure(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await call;
  } catch (err) {
    const res = (err as { response?: { status: number; data: unknown } }).response;
    if (res) return res as { status: number; data: any };
    throw err;
  }
  assert.fail('the call succeeded');
}

test("the reference's client reads readiness in its own shape, with our components inside", async (t) => {
  // Only the example's devnet relayer: the public testnets of the others may not answer here (readiness would say so).
  const s = await build(t, {
    devnet: true,
    runtime: true,
    config: {
      relayers: JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')).relayers.filter(
        (r: { network: string }) => r.network === 'devnet',
      ),
    },
  });
  const ready = (await new HealthApi(new Configuration({ basePath: s.url })).readiness()).data;
  assert.equal(ready.ready, true);
  assert.equal(ready.status, 'healthy');
  assert.equal(ready.reason, undefined);
  assert.ok(!Number.isNaN(Date.parse(ready.timestamp)));
  assert.deepEqual(Object.keys(ready.components).sort(), [
    'plugins',
    'queue',
    'redis',
    'rpc',
    'runtime',
    'store',
    'system',
  ]);
  assert.equal(typeof ready.components.system.fd_count, 'number');
  assert.equal((ready.components as unknown as Record<string, { status: string }>).store.status, 'healthy');
});

test('the public paths answer another method 404, with or without a key, never 401', async (t) => {
  const s = await build(t);
  for (const keyed of [false, true]) {
    for (const [method, path] of [
      ['POST', '/api/v1/health'],
      ['DELETE', '/api/v1/ready'],
      ['GET', '/api/v1/health/extra'],
    ] as const) {
      const res = await s.request(method, path, {
        auth: keyed ? undefined : false,
        body: method === 'POST' ? {} : undefined,
      });
      assert.equal(res.status, 404, `${method} ${path} (key: ${keyed}): ${res.text}`);
    }
  }
  assert.equal((await s.request('GET', '/api/v1/health', { auth: false })).text, 'OK');
  assert.equal(
    (await s.request('POST', '/api/v1/relayers', { auth: false, body: {} })).status,
    401,
    'other paths still need the key',
  );
});

test('a body that is not JSON answers the reference\'s "Invalid JSON" text, in our envelope', async (t) => {
  const s = await build(t);
  const res = await s.request('POST', '/api/v1/notifications', {
    rawBody: '{"url": ',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(res.status, 400);
  assert.deepEqual([res.body.success, res.body.data, res.body.message], [false, null, 'Bad Request']);
  assert.match(res.body.error, /^Invalid JSON: /);
});

test("PATCH of a notification takes the reference's `type` (webhook); another type is refused", async (t) => {
  const s = await build(t);
  const notifications = new NotificationsApi(new Configuration({ basePath: s.url, accessToken: API_KEY }));
  await notifications.createNotification({ id: 'typed', url: 'https://example.com/a' } as never);
  const updated = (
    await notifications.updateNotification('typed', { type: 'webhook', url: 'https://example.com/b' } as never)
  ).data.data!;
  assert.deepEqual([updated.type, updated.url], ['webhook', 'https://example.com/b']);
  assert.equal(
    (await notifications.updateNotification('typed', { type: 'webhook' } as never)).data.data!.url,
    'https://example.com/b',
  );
  const refused = await failure(notifications.updateNotification('typed', { type: 'email' } as never));
  assert.equal(refused.status, 400);
  assert.match(refused.data.error, /type/);
});

test('PATCH of a plugin with {} changes nothing and answers the plugin, as the reference does', async (t) => {
  const s = await build(t, {
    plugins: { 'echo.ts': ECHO },
    config: { plugins: [{ id: 'echo', timeout: 12 }] } as never,
  });
  const plugins = new PluginsApi(new Configuration({ basePath: s.url, accessToken: API_KEY }));
  const res = (await plugins.updatePlugin('echo', {})).data;
  assert.equal(res.success, true);
  assert.equal(res.data!.id, 'echo');
  assert.equal(res.data!.timeout, 12);
  assert.equal((await s.request('GET', '/api/v1/plugins/echo')).body.data.timeout, 12);
});

test("a plugin's folder named by a config entry is that plugin, not a second one (the channels example's layout)", async (t) => {
  const s = await build(t, {
    plugins: { 'channel/index.ts': ECHO, 'channel/helpers.ts': 'export const x = 1;\n', 'standalone/index.ts': ECHO },
    config: { plugins: [{ id: 'channels', path: 'channel/index.ts' }] } as never,
  });
  const ids = (await s.request('GET', '/api/v1/plugins')).body.data.map((p: { id: string }) => p.id).sort();
  assert.deepEqual(ids, ['channels', 'standalone']);
  assert.equal((await s.request('POST', '/api/v1/plugins/channel/call', { body: {} })).status, 404);
  assert.equal(
    (await s.request('POST', '/api/v1/plugins/channels/call', { body: { params: { a: 1 } } })).body.data.a,
    1,
  );
});

test('an EVM address with a wrong EIP-55 checksum is accepted as the reference accepts it, and logged', async (t) => {
  const SEND = `export async function handler(api, params) { const r = api.useRelayer('evm'); return (await r.sendTransaction(params.tx)).id; }`;
  const s = await buildWithRelayers(t, { plugins: { 'send.ts': SEND } });
  const sent = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody({ to: README_ADDRESS }) });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.to, CHECKSUMMED);
  const warned = () => s.logs.filter((l) => String(l.msg).includes('wrong EIP-55 checksum'));
  assert.equal(warned().length, 1);
  assert.equal(warned()[0]!.to, README_ADDRESS);

  // Through a plugin's relayer API.
  const called = await s.request('POST', '/api/v1/plugins/send/call', {
    body: { params: { tx: evmBody({ to: README_ADDRESS }) } },
  });
  assert.equal(called.status, 200, called.text);
  assert.equal(warned().length, 2);

  // In a whitelist_receivers policy: accepted, compared in any case, logged.
  const patched = await s.request('PATCH', '/api/v1/relayers/evm', {
    body: { policies: { whitelist_receivers: [README_ADDRESS] } },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.ok(
    s.logs.some(
      (l) =>
        String(l.msg).startsWith('whitelist_receivers: addresses with a wrong EIP-55 checksum') &&
        (l.addresses as string[])[0] === README_ADDRESS,
    ),
  );
  assert.equal(
    (await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody({ to: CHECKSUMMED }) })).status,
    200,
  );
  assert.equal(
    (
      await s.request('POST', '/api/v1/relayers/evm/transactions', {
        body: evmBody({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
      })
    ).status,
    400,
  );
});
