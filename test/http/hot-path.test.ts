// What the plugin call's hot path keeps or skips to save CPU, checked to answer as before: the remembered keys'
// digests and route labels (bounded), the regex mounts of the docs and metrics routers, and the recent-calls ring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedMemo } from '../../src/http/bounded-memo.ts';
import { createRouteMatcher, UNMATCHED_ROUTE } from '../../src/http/request-metrics.ts';
import { DOCS_PATHS } from '../../src/openapi/docs-router.ts';
import { METRICS_PATHS } from '../../src/http/metrics-endpoint.ts';
import { createPluginCallLog, RECENT_CALLS } from '../../src/domain/live/plugin-calls.ts';
import { build } from '../helper.ts';

test('a bounded memo computes a key once, forgets everything when full, and never keeps a long key', () => {
  const computed: string[] = [];
  const memo = boundedMemo((key) => {
    computed.push(key);
    return key.length;
  });
  assert.equal(memo('a'), 1);
  assert.equal(memo('a'), 1);
  assert.deepEqual(computed, ['a']);
  const long = 'k'.repeat(257);
  memo(long);
  memo(long);
  assert.equal(computed.filter((k) => k === long).length, 2, 'a long key is computed every time');
  // 'a' and 999 others fill it; the next new key clears it, so 'a' is computed again.
  for (let i = 1; i < 1_000; i++) memo(`k${i}`);
  memo('a');
  assert.equal(computed.filter((k) => k === 'a').length, 1);
  memo('new');
  memo('a');
  assert.equal(computed.filter((k) => k === 'a').length, 2);
});

test('a remembered route label is the one matching finds, a trailing slash and an unknown path included', () => {
  const routeOf = createRouteMatcher([
    '/api/v1/plugins/{plugin_id}/call',
    '/api/v1/plugins/{plugin_id}',
    '/api/v1/plugins',
  ]);
  for (let round = 0; round < 2; round++) {
    assert.equal(routeOf('/api/v1/plugins/echo/call'), '/api/v1/plugins/{plugin_id}/call');
    assert.equal(routeOf('/api/v1/plugins/echo/call/'), '/api/v1/plugins/{plugin_id}/call');
    assert.equal(routeOf('/api/v1/plugins'), '/api/v1/plugins');
    assert.equal(routeOf('/api/v1/nope'), UNMATCHED_ROUTE);
  }
});

test('the docs and metrics routers are entered for every path their routes can match, in any case, and no other', () => {
  for (const path of [
    '/docs',
    '/docs/',
    '/DOCS',
    '/docs/initializer.js',
    '/docs/swagger-ui.css',
    '/docs/x/y',
    '/api/v1/openapi.json',
    '/API/V1/OpenAPI.json/',
  ])
    assert.ok(DOCS_PATHS.test(path), path);
  for (const path of ['/docsx', '/doc', '/api/v1/openapi.jsonx', '/api/v1/plugins/echo/call', '/', '/metrics'])
    assert.ok(!DOCS_PATHS.test(path), path);
  for (const path of [
    '/metrics',
    '/metrics/',
    '/METRICS',
    '/metrics/relaybox_http_requests_total',
    '/debug/metrics/scrape',
    '/Debug/Metrics/Scrape/',
  ])
    assert.ok(METRICS_PATHS.test(path), path);
  for (const path of ['/metricsx', '/debug/metrics', '/debug/metrics/scrapes', '/plugins/echo/call', '/', '/docs'])
    assert.ok(!METRICS_PATHS.test(path), path);
});

test('the docs and metrics routes answer through their regex mounts as before', async (t) => {
  const s = await build(t);
  assert.equal((await s.request('GET', '/DOCS/', { auth: false })).status, 200);
  assert.equal((await s.request('GET', '/api/v1/openapi.json/', { auth: false })).status, 200);
  assert.equal((await s.request('GET', '/docs/nope.js', { auth: false })).status, 404);
  assert.equal((await s.request('GET', '/docs//', { auth: false })).status, 404);
  assert.equal((await s.request('GET', '/metrics', { auth: false })).status, 401);
  const text = await s.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
  assert.equal(text.status, 200);
  // The router is entered, and its handler still answers only the exact path.
  assert.equal((await s.request('GET', '/metrics/')).status, 404);
  assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
  const names = await s.request('GET', '/api/v1/metrics');
  assert.equal(names.status, 200);
  assert.ok(Array.isArray(names.body));
});

test('the recent calls ring answers newest first before and after it wraps', () => {
  const log = createPluginCallLog();
  const call = (i: number) => ({
    request_id: `r${i}`,
    outcome: 'ok',
    duration_ms: i,
    result: '1',
    error: null,
    logs: undefined,
    traces: undefined,
  });
  log.record('p', call(0), 0);
  log.record('p', call(1), 1);
  assert.deepEqual(
    log.recent('p').map((e) => e.request_id),
    ['r1', 'r0'],
  );
  for (let i = 2; i < 2 * RECENT_CALLS + 3; i++) log.record('p', call(i), i);
  const ids = log.recent('p').map((e) => e.request_id);
  assert.equal(ids.length, RECENT_CALLS);
  assert.deepEqual(
    ids,
    Array.from({ length: RECENT_CALLS }, (_, k) => `r${2 * RECENT_CALLS + 2 - k}`),
  );
  const [newest] = log.recent('p');
  assert.deepEqual(newest, {
    request_id: `r${2 * RECENT_CALLS + 2}`,
    at: new Date(2 * RECENT_CALLS + 2).toISOString(),
    outcome: 'ok',
    duration_ms: 2 * RECENT_CALLS + 2,
    result: '1',
    error: null,
    logs: [],
    traces: [],
    truncated: false,
  });
});
