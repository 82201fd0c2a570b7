// Plugin calls as the reference's client makes them: `?route=` for the route, a JSON body without Content-Type,
// and the reference's texts for a refused method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY, build } from '../helper.ts';
import { rawRequest } from '../security/support.ts';

const ECHO = `export async function handler(c) { return { params: c.params, route: c.route, method: c.method, query: c.query }; }`;

test('the route comes from ?route= when the path has no suffix; a path suffix wins', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const byQuery = await s.request('POST', '/api/v1/plugins/echo/call?route=/verify&x=1', {
    body: { params: { a: 1 } },
  });
  assert.equal(byQuery.status, 200, byQuery.text);
  assert.equal(byQuery.body.data.route, '/verify');
  assert.deepEqual(byQuery.body.data.query, { route: ['/verify'], x: ['1'] }, 'the query still carries every value');
  const both = await s.request('POST', '/api/v1/plugins/echo/call/settle?route=/verify', { body: {} });
  assert.equal(both.body.data.route, '/settle');
  const repeated = await s.request('POST', '/api/v1/plugins/echo/call?route=/first&route=/second', { body: {} });
  assert.equal(repeated.body.data.route, '/first', 'the first value, as the reference');
  const none = await s.request('POST', '/api/v1/plugins/echo/call', { body: {} });
  assert.equal(none.body.data.route, '');
});

test('a JSON body without Content-Type is read as JSON on a plugin call; a non-JSON one answers 400 with the reason', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const auth: Array<[string, string]> = [['Authorization', `Bearer ${API_KEY}`]];
  const ok = await rawRequest(
    s.url,
    'POST',
    '/api/v1/plugins/echo/call/x',
    auth,
    JSON.stringify({ params: { n: 12345678901234567890n.toString() } }),
  );
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body.data.params, { n: '12345678901234567890' });
  const bad = await rawRequest(s.url, 'POST', '/api/v1/plugins/echo/call', auth, 'not json');
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /^Invalid JSON: /);
  // A body labelled as something else is still refused, and other routes keep requiring the JSON type.
  const typed = await s.request('POST', '/api/v1/plugins/echo/call', {
    rawBody: '{}',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(typed.status, 415);
  const notification = await rawRequest(
    s.url,
    'POST',
    '/api/v1/notifications',
    auth,
    JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
  );
  assert.equal(notification.status, 415);
});

test("GET on a plugin without allow_get_invocation answers 405 with the reference's text; other methods name what works", async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const get = await s.request('GET', '/api/v1/plugins/echo/call');
  assert.equal(get.status, 405);
  assert.deepEqual(get.body, {
    success: false,
    data: null,
    error:
      "GET requests are not enabled for this plugin. Set 'allow_get_invocation: true' in plugin configuration to enable.",
  });
  const put = await s.request('PUT', '/api/v1/plugins/echo/call', { body: {} });
  assert.equal(put.status, 405);
  assert.equal(put.body.error, 'PUT is not supported on a plugin call; use POST (or GET when the plugin allows it)');
  const unknown = await s.request('POST', '/api/v1/plugins/ghost/call', { body: {} });
  assert.deepEqual(
    unknown.body,
    { success: false, data: null, error: 'Plugin with ID ghost not found' },
    "the seed's text (it differs from the reference's `Plugin with id`; the seed wins)",
  );
});
