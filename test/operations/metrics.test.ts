// GET /metrics: Prometheus text behind the API key (or open on METRICS_PORT), by route pattern, plugin, webhook, transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { build, request, type TestServer } from '../helper.ts';
import { buildWithRelayers, evmBody, stellarBody, txPath } from '../transactions/fixtures.ts';
import { FAST_WEBHOOKS, startReceiver, waitFor } from '../webhooks/support.ts';
import { eventually, fixture } from '../fixtures/plugin-fixtures.ts';

async function scrape(s: TestServer): Promise<string> {
  const res = await s.request('GET', '/metrics');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** The value of one sample, matched by name and exact label set (label order as prom-client writes them). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ? m[2].split(/,(?=[a-z_]+=")/) : [];
    if (have.length === wanted.length && wanted.every((w) => have.includes(w))) return Number(m[3]);
  }
  return undefined;
}

test('metrics need the API key and answer the Prometheus text format', async (t) => {
  const s = await build(t);
  const anonymous = await s.request('GET', '/metrics', { auth: false });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.message, 'Unauthorized');
  const text = await scrape(s);
  assert.match(text, /^# HELP relaybox_http_requests_total /m);
  assert.match(text, /^# TYPE relaybox_http_request_duration_seconds histogram$/m);
});

test('HTTP requests are counted and timed by route pattern, method and status, never by raw URL', async (t) => {
  const s = await buildWithRelayers(t);
  await s.request('GET', '/api/v1/relayers/evm');
  await s.request('GET', '/api/v1/relayers/solana');
  await s.request('GET', '/api/v1/relayers/no-such-relayer');
  await s.request('GET', '/api/v1/relayers/evm/transactions/?per_page=5');
  await s.request('GET', '/api/v1/relayers', { auth: false });
  await s.request('GET', '/no/such/route/abc123');
  const text = await scrape(s);
  const route = '/api/v1/relayers/{relayer_id}';
  assert.equal(sample(text, 'relaybox_http_requests_total', { route, method: 'GET', status: '200' }), 2);
  assert.equal(sample(text, 'relaybox_http_requests_total', { route, method: 'GET', status: '404' }), 1);
  assert.equal(
    sample(text, 'relaybox_http_request_duration_seconds_count', { route, method: 'GET', status: '200' }),
    2,
  );
  assert.ok(
    sample(text, 'relaybox_http_request_duration_seconds_bucket', {
      le: '+Inf',
      route,
      method: 'GET',
      status: '200',
    }) === 2,
  );
  assert.equal(
    sample(text, 'relaybox_http_requests_total', {
      route: '/api/v1/relayers/{relayer_id}/transactions',
      method: 'GET',
      status: '200',
    }),
    1,
  );
  // Refused before routing (no key): still labelled with its route.
  assert.equal(
    sample(text, 'relaybox_http_requests_total', { route: '/api/v1/relayers', method: 'GET', status: '401' }),
    1,
  );
  assert.equal(sample(text, 'relaybox_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1);
  for (const raw of ['/api/v1/relayers/evm"', '/api/v1/relayers/solana', 'no-such-relayer', 'abc123', 'per_page'])
    assert.ok(!text.includes(raw), `raw URL part ${raw} in the metrics`);
});

test('transactions are counted by relayer and status from the store on each scrape', async (t) => {
  const s = await buildWithRelayers(t);
  // Stellar transactions stay pending here, and a pending one is canceled at once.
  const first = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  await s.request('POST', txPath('stellar'), { body: stellarBody() });
  await s.request('DELETE', txPath('stellar', first.id));
  const evm = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  await waitFor(
    async () => (await s.request('GET', txPath('evm', evm.id))).body.data.status === 'submitted',
    'the EVM send submitted',
  );
  const text = await scrape(s);
  assert.equal(sample(text, 'relaybox_transactions', { relayer: 'stellar', status: 'pending', store: 'sqlite' }), 1);
  assert.equal(sample(text, 'relaybox_transactions', { relayer: 'stellar', status: 'canceled', store: 'sqlite' }), 1);
  assert.equal(sample(text, 'relaybox_transactions', { relayer: 'evm', status: 'submitted', store: 'sqlite' }), 1);
  assert.equal(
    sample(text, 'relaybox_transaction_transitions_total', { network_type: 'evm', from: 'sent', to: 'submitted' }),
    1,
  );
  assert.equal(
    sample(text, 'relaybox_transaction_transitions_total', {
      network_type: 'stellar',
      from: 'pending',
      to: 'canceled',
    }),
    1,
  );
  assert.equal(
    sample(text, 'relaybox_transactions', { relayer: 'solana', status: 'pending', store: 'sqlite' }),
    undefined,
  );
});

test('webhook deliveries are counted by outcome, with attempt duration and delivery latency', async (t) => {
  let calls = 0;
  const receiver = await startReceiver(t, () => (++calls === 1 ? 500 : 200));
  const s = await buildWithRelayers(t, { env: FAST_WEBHOOKS });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'm-hook', url: receiver.url } });
  // A Stellar send here is one event (it stays pending): exactly one delivery to count.
  await s.request('PATCH', '/api/v1/relayers/stellar', { body: { notification_id: 'm-hook' } });
  await s.request('POST', txPath('stellar'), { body: stellarBody() });
  const text = await waitFor(async () => {
    const t = await scrape(s);
    return sample(t, 'relaybox_webhook_deliveries_total', { outcome: 'delivered' }) === 1 ? t : undefined;
  }, 'the delivered webhook in the metrics');
  assert.equal(sample(text, 'relaybox_webhook_deliveries_total', { outcome: 'retry' }), 1);
  assert.equal(sample(text, 'relaybox_webhook_deliveries_total', { outcome: 'failed' }), 0);
  assert.equal(sample(text, 'relaybox_webhook_attempt_duration_seconds_count', { outcome: 'retry' }), 1);
  assert.equal(sample(text, 'relaybox_webhook_attempt_duration_seconds_count', { outcome: 'delivered' }), 1);
  assert.equal(sample(text, 'relaybox_webhook_delivery_latency_seconds_count'), 1);
});

test('real plugin calls are counted by plugin and outcome, and a killed runtime counts as a restart', async (t) => {
  const s = await build(t, {
    plugins: {
      'echo.ts': 'export async function handler(ctx) { return ctx.params; }',
      'fails.ts': "export async function handler() { throw new Error('nope'); }",
      'loop.ts': fixture('infinite-loop.ts'),
    },
  });
  await eventually(async () => (await s.request('POST', '/api/v1/plugins/loop/call', { body: {} })).status !== 404);
  for (let i = 0; i < 2; i++)
    assert.equal((await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } })).status, 200);
  assert.equal((await s.request('POST', '/api/v1/plugins/fails/call', { body: {} })).status, 500);
  assert.equal((await s.request('POST', '/api/v1/plugins/missing/call', { body: {} })).status, 404);
  let text = await scrape(s);
  assert.equal(sample(text, 'relaybox_plugin_calls_total', { plugin: 'echo', outcome: 'ok' }), 2);
  assert.equal(sample(text, 'relaybox_plugin_calls_total', { plugin: 'fails', outcome: 'plugin_error' }), 1);
  assert.equal(sample(text, 'relaybox_plugin_calls_total', { plugin: 'loop', outcome: 'timeout' }), 1);
  assert.equal(sample(text, 'relaybox_plugin_call_duration_seconds_count', { plugin: 'echo', outcome: 'ok' }), 2);
  assert.equal(sample(text, 'relaybox_plugin_calls_total', { plugin: 'missing', outcome: 'plugin_error' }), undefined);
  assert.equal(sample(text, 'relaybox_runtime_queue_depth'), 0);
  assert.equal(sample(text, 'relaybox_runtime_restarts_total'), 0);

  process.kill(s.app.runtime.pid!, 'SIGKILL');
  await eventually(
    async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 1 } })).status === 200,
  );
  text = await scrape(s);
  assert.equal(sample(text, 'relaybox_runtime_restarts_total'), 1);
});

test('Node process defaults are collected', async (t) => {
  const s = await build(t);
  const text = await scrape(s);
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
  ]) {
    assert.match(text, new RegExp(`^${name} `, 'm'), name);
  }
});

test('with METRICS_PORT set, a second listener serves only the metrics routes, without the API key', async (t) => {
  const s = await build(t, { env: { METRICS_PORT: '0' } });
  const server = s.app.metricsServer;
  assert.ok(server, 'the metrics listener is up');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  assert.notEqual(base, s.url);
  await s.request('GET', '/api/v1/health');
  const open = await request(base, 'GET', '/metrics', { auth: false });
  assert.equal(open.status, 200);
  assert.equal(
    sample(open.text, 'relaybox_http_requests_total', { route: '/api/v1/health', method: 'GET', status: '200' }),
    1,
  );
  assert.equal((await request(base, 'GET', '/api/v1/relayers', { auth: false })).status, 404);
  assert.equal((await request(base, 'POST', '/metrics', { auth: false })).status, 405);
  // The API port keeps its key.
  assert.equal((await s.request('GET', '/metrics', { auth: false })).status, 401);
});

test('without METRICS_PORT there is no second listener', async (t) => {
  const s = await build(t);
  assert.equal(s.app.metricsServer, undefined);
});
