// The reference's metrics routes beside ours: /api/v1/metrics (names as JSON), /metrics/{name}, /debug/metrics/scrape,
// and /metrics answering the names to a client that asks for JSON (the reference's client) while scrapers keep the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { build, shared, request } from '../helper.ts';
import { prefersJson } from '../../src/http/metrics-endpoint.ts';

/** The tests below that only read share one app. */
const app = shared();

const AXIOS_ACCEPT = 'application/json, text/plain, */*';
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.1';

test('GET /api/v1/metrics answers the metric names as a JSON array, behind the API key', async () => {
  const s = await app();
  const res = await s.request('GET', '/api/v1/metrics');
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(Array.isArray(res.body) && res.body.every((n: unknown) => typeof n === 'string'));
  for (const name of [
    'relaybox_http_requests_total',
    'relaybox_http_request_duration_seconds',
    'process_cpu_seconds_total',
  ])
    assert.ok(res.body.includes(name), name);
  const anonymous = await s.request('GET', '/api/v1/metrics', { auth: false });
  assert.equal(anonymous.status, 401);
});

test('one metric by name answers its Prometheus text; an unknown name answers 404 naming it', async () => {
  const s = await app();
  for (const prefix of ['/api/v1', '']) {
    const res = await s.request('GET', `${prefix}/metrics/relaybox_http_requests_total`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(res.text, /^# TYPE relaybox_http_requests_total counter$/m);
    assert.ok(!/relaybox_http_request_duration_seconds/.test(res.text), 'only the metric asked for');
    const missing = await s.request('GET', `${prefix}/metrics/no_such_metric`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, "no metric named 'no_such_metric'");
    assert.equal(
      (await s.request('GET', `${prefix}/metrics/relaybox_http_requests_total`, { auth: false })).status,
      401,
    );
  }
});

test('/debug/metrics/scrape answers every metric as text, under /api/v1 and at the root', async () => {
  const s = await app();
  for (const path of ['/api/v1/debug/metrics/scrape', '/debug/metrics/scrape']) {
    const res = await s.request('GET', path);
    assert.equal(res.status, 200, path);
    assert.match(res.text, /^# HELP relaybox_http_requests_total /m);
    assert.equal((await s.request('GET', path, { auth: false })).status, 401);
  }
});

test('GET /metrics answers the names to a client preferring JSON, and the text to scrapers and curl', async () => {
  const s = await app();
  const json = await s.request('GET', '/metrics', { headers: { accept: AXIOS_ACCEPT } });
  assert.ok(Array.isArray(json.body) && json.body.includes('relaybox_http_requests_total'));
  for (const accept of [PROMETHEUS_ACCEPT, '*/*', 'text/plain', 'text/plain, application/json']) {
    const text = await s.request('GET', '/metrics', { headers: { accept } });
    assert.match(text.text, /^# HELP /m, accept);
  }
  assert.equal(prefersJson(undefined), false);
  assert.equal(prefersJson('application/json;q=0.5, text/plain'), false);
  assert.equal(prefersJson('text/plain;q=0.2, application/json'), true);
});

test('the METRICS_PORT listener serves the same routes without the key', async (t) => {
  const s = await build(t, { env: { METRICS_PORT: '0' } });
  const base = `http://127.0.0.1:${(s.app.metricsServer!.address() as AddressInfo).port}`;
  const names = await request(base, 'GET', '/metrics', { auth: false, headers: { accept: AXIOS_ACCEPT } });
  assert.ok(Array.isArray(names.body) && names.body.includes('relaybox_http_requests_total'));
  const one = await request(base, 'GET', '/metrics/relaybox_http_requests_total', { auth: false });
  assert.match(one.text, /^# TYPE relaybox_http_requests_total counter$/m);
  assert.equal((await request(base, 'GET', '/metrics/nope', { auth: false })).status, 404);
  assert.match((await request(base, 'GET', '/debug/metrics/scrape', { auth: false })).text, /^# HELP /m);
});

test('a stored API key reads the metrics routes with a metrics permission, and only with one', async (t) => {
  const s = await build(t);
  const key = async (permissions: string[]) =>
    (await s.request('POST', '/api/v1/api-keys', { body: { name: permissions[0], permissions } })).body.data
      .value as string;
  const reader = await key(['metrics:all:read']);
  const other = await key(['relayer:all:read']);
  for (const path of [
    '/api/v1/metrics',
    '/api/v1/metrics/relaybox_http_requests_total',
    '/api/v1/debug/metrics/scrape',
    '/metrics',
    '/metrics/relaybox_http_requests_total',
    '/debug/metrics/scrape',
  ]) {
    assert.equal((await s.request('GET', path, { auth: `Bearer ${reader}` })).status, 200, path);
    const refused = await s.request('GET', path, { auth: `Bearer ${other}` });
    assert.equal(refused.status, 403, path);
    assert.match(refused.body.error, /has no permission to read on metrics/);
  }
});
