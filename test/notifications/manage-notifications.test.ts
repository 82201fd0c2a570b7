// Listing, reading, changing and deleting notifications, and the deliveries log's paging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { emit, pointRelayer, txRecord } from '../webhooks/support.ts';

const KEY = 'a-signing-key-of-at-least-32-characters!';

test('the list is paginated, newest first, with the pagination block', async (t) => {
  const s = await build(t);
  for (const id of ['n1', 'n2', 'n3'])
    await s.request('POST', '/api/v1/notifications', { body: { id, url: `https://example.com/${id}` } });
  const first = await s.request('GET', '/api/v1/notifications?per_page=2');
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.pagination, { current_page: 1, per_page: 2, total_items: 4 });
  assert.deepEqual(
    first.body.data.map((n: { id: string }) => n.id),
    ['n3', 'n2'],
  );
  const second = await s.request('GET', '/api/v1/notifications?page=2&per_page=2');
  assert.deepEqual(
    second.body.data.map((n: { id: string }) => n.id),
    ['n1', 'example-webhook'],
  );
  const defaults = await s.request('GET', '/api/v1/notifications');
  assert.deepEqual(defaults.body.pagination, { current_page: 1, per_page: 10, total_items: 4 });
  const zero = await s.request('GET', '/api/v1/notifications?per_page=0');
  assert.deepEqual(zero.body.data, []);
  assert.equal(zero.body.pagination.total_items, 4);
  for (const q of ['page=0', 'per_page=101', 'page=x', 'per_page=-1', 'sort=id']) {
    const bad = await s.request('GET', `/api/v1/notifications?${q}`);
    assert.equal(bad.status, 400, q);
    assert.equal(bad.body.message, 'Bad Request');
  }
});

test('an unknown notification answers 404 Not found on every route', async (t) => {
  const s = await build(t);
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/api/v1/notifications/nope'],
    ['PATCH', '/api/v1/notifications/nope', { url: 'https://example.com' }],
    ['DELETE', '/api/v1/notifications/nope'],
    ['GET', '/api/v1/notifications/nope/deliveries'],
    ['POST', '/api/v1/notifications/nope/deliveries/x/retry'],
  ];
  for (const [method, path, body] of routes) {
    const res = await s.request(method, path, body === undefined ? {} : { body });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal(res.body.message, 'Not found');
    assert.match(res.body.error, /notification 'nope' not found/);
  }
});

test('PATCH changes the url, sets a key, and an empty string removes it', async (t) => {
  const s = await build(t);
  await s.request('POST', '/api/v1/notifications', { body: { id: 'p', url: 'https://example.com/a' } });
  const url = await s.request('PATCH', '/api/v1/notifications/p', { body: { url: 'https://example.com/b' } });
  assert.deepEqual(url.body.data, { id: 'p', type: 'webhook', url: 'https://example.com/b', has_signing_key: false });
  const keyed = await s.request('PATCH', '/api/v1/notifications/p', { body: { signing_key: KEY } });
  assert.equal(keyed.body.data.has_signing_key, true);
  assert.ok(!keyed.text.includes(KEY));
  const got = await s.request('GET', '/api/v1/notifications/p');
  assert.deepEqual(got.body.data, { id: 'p', type: 'webhook', url: 'https://example.com/b', has_signing_key: true });
  const removed = await s.request('PATCH', '/api/v1/notifications/p', { body: { signing_key: '' } });
  assert.equal(removed.body.data.has_signing_key, false);

  const cases: Array<[unknown, RegExp]> = [
    [{}, /must NOT have fewer than 1 properties/],
    [{ signing_key: 'short' }, /'signing_key' must be/],
    [{ url: 'nope' }, /'url' must match/],
    [{ id: 'other' }, /unknown field 'id'/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('PATCH', '/api/v1/notifications/p', { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  assert.ok(!s.rawLogs().includes(KEY));
});

test('DELETE removes a notification, but not while a relayer points at it', async (t) => {
  const s = await build(t);
  await s.request('POST', '/api/v1/notifications', { body: { id: 'used', url: 'https://example.com/a' } });
  pointRelayer(s.app.db, 'hook-relayer', 'used');
  const refused = await s.request('DELETE', '/api/v1/notifications/used');
  assert.equal(refused.status, 400);
  assert.equal(refused.body.message, 'Bad Request');
  assert.match(refused.body.error, /notification 'used' is used by relayer\(s\) hook-relayer/);

  pointRelayer(s.app.db, 'hook-relayer', null);
  const deleted = await s.request('DELETE', '/api/v1/notifications/used');
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.data, 'Notification deleted successfully');
  assert.equal((await s.request('GET', '/api/v1/notifications/used')).status, 404);
});

test('the deliveries log is paginated, newest first, with status, attempts, last error and next attempt', async (t) => {
  // Points at a closed loopback port (allowed for webhooks by default) with a long backoff: every event stays pending after one attempt.
  const s = await build(t, {
    env: { WEBHOOK_BACKOFF_BASE_MS: '600000', WEBHOOK_BACKOFF_MAX_MS: '600000', WEBHOOK_POLL_INTERVAL_MS: '20' },
  });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'log', url: 'http://127.0.0.1:1/hook' } });
  pointRelayer(s.app.db, 'hook-relayer', 'log');
  await emit(
    s.app.store,
    txRecord('hook-relayer', 'tx-1'),
    txRecord('hook-relayer', 'tx-2'),
    txRecord('hook-relayer', 'tx-3'),
  );
  const ids = s.app.db.prepare('SELECT id FROM webhook_events ORDER BY seq').pluck().all() as string[];
  const page = await s.request('GET', '/api/v1/notifications/log/deliveries?per_page=2');
  assert.equal(page.status, 200);
  assert.deepEqual(page.body.pagination, { current_page: 1, per_page: 2, total_items: 3 });
  assert.deepEqual(
    page.body.data.map((d: { id: string }) => d.id),
    [ids[2], ids[1]],
  );
  const entry = page.body.data[0];
  assert.deepEqual(Object.keys(entry).sort(), [
    'attempts',
    'created_at',
    'delivered_at',
    'event',
    'id',
    'last_error',
    'next_attempt_at',
    'status',
    'transaction_id',
  ]);
  assert.equal(entry.event, 'transaction_update');
  assert.equal(entry.transaction_id, 'tx-3');
  assert.equal(entry.status, 'pending');
  const retry = await s.request('POST', `/api/v1/notifications/log/deliveries/${ids[0]}/retry`);
  assert.equal(retry.status, 400);
  assert.match(retry.body.error, /is pending; only failed deliveries can be retried/);
});

test('a relayer that left the config does not block deleting its notification', async (t) => {
  const s = await build(t);
  await s.request('POST', '/api/v1/notifications', { body: { id: 'orphan', url: 'https://example.com/a' } });
  pointRelayer(s.app.db, 'gone-relayer', 'orphan');
  s.app.db.prepare('UPDATE relayers SET active = 0 WHERE id = ?').run('gone-relayer');
  const deleted = await s.request('DELETE', '/api/v1/notifications/orphan');
  assert.equal(deleted.status, 200);
});
