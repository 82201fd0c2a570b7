// Retries: failed attempts come back with the same event id; the last one marks the event failed; retry re-queues it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import {
  FAST_WEBHOOKS,
  emit,
  pointRelayer,
  startReceiver,
  txRecord,
  waitFor,
  waitForFailedDelivery,
} from './support.ts';

test('a receiver that fails twice then succeeds gets the event on the third attempt with the same X-Webhook-Id', async (t) => {
  const receiver = await startReceiver(t, (_req, i) => (i < 2 ? 503 : 200));
  const s = await build(t, { env: FAST_WEBHOOKS });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'flaky', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'flaky');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));

  const list = await waitFor(async () => {
    const res = await s.request('GET', '/api/v1/notifications/flaky/deliveries');
    return res.body.data[0]?.status === 'delivered' && res.body.data;
  }, 'delivery');
  assert.equal(receiver.received.length, 3);
  const ids = new Set(receiver.received.map((r) => r.headers['x-webhook-id']));
  assert.equal(ids.size, 1);
  assert.deepEqual(receiver.received[2]!.raw, receiver.received[0]!.raw, 'the same bytes on every attempt');
  assert.equal(list[0].attempts, 3);
  assert.equal(list[0].last_error, 'receiver answered HTTP 503');
});

test('after the last attempt the event is failed and kept, and retry re-queues it for delivery', async (t) => {
  let healthy = false;
  const receiver = await startReceiver(t, () => (healthy ? 204 : 500));
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_MAX_ATTEMPTS: '3' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'down', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'down');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));

  const failed = await waitForFailedDelivery(s, 'down');
  assert.equal(failed.attempts, 3);
  assert.equal(failed.last_error, 'receiver answered HTTP 500');
  assert.equal(failed.next_attempt_at, null);
  assert.equal(receiver.received.length, 3);
  assert.ok(s.logs.some((l) => l.msg === 'webhook delivery failed for good' && l.eventId === failed.id));

  healthy = true;
  const retried = await s.request('POST', `/api/v1/notifications/down/deliveries/${failed.id}/retry`);
  assert.equal(retried.status, 200);
  assert.equal(retried.body.data.id, failed.id);
  assert.equal(retried.body.data.status, 'pending');
  await waitFor(async () => {
    const res = await s.request('GET', '/api/v1/notifications/down/deliveries');
    return res.body.data[0]?.status === 'delivered';
  }, 'the retried event to be delivered');
  assert.equal(receiver.received.at(-1)!.headers['x-webhook-id'], failed.id);

  const again = await s.request('POST', `/api/v1/notifications/down/deliveries/${failed.id}/retry`);
  assert.equal(again.status, 400);
  assert.match(again.body.error, /is delivered; only failed deliveries can be retried/);
  const unknown = await s.request('POST', '/api/v1/notifications/down/deliveries/nope/retry');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.message, 'Not found');
});

test('a receiver that never answers is cut off at the per-attempt timeout and retried', async (t) => {
  const receiver = await startReceiver(t, (_req, i) => (i === 0 ? 'hang' : 200));
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_TIMEOUT_MS: '300' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'slow', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'slow');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const [event] = await waitFor(async () => {
    const res = await s.request('GET', '/api/v1/notifications/slow/deliveries');
    return res.body.data[0]?.status === 'delivered' && res.body.data;
  }, 'delivery after a timeout');
  // At least the hanging attempt and the one that delivered: a loaded machine may make a later attempt miss 300 ms too.
  assert.ok(event.attempts >= 2, `attempts: ${event.attempts}`);
  assert.equal(event.last_error, 'no answer within 300 ms');
});

test('a connection error is recorded and retried', async (t) => {
  const receiver = await startReceiver(t);
  const deadUrl = receiver.url;
  await receiver.close();
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_MAX_ATTEMPTS: '2' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'dead', url: deadUrl } });
  pointRelayer(s.app.db, 'hook-relayer', 'dead');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const event = await waitForFailedDelivery(s, 'dead');
  assert.match(event.last_error, /^connection error: ECONNREFUSED/);
});

test('a slow receiver does not slow the API', async (t) => {
  const receiver = await startReceiver(t, () => 'hang');
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_CONCURRENCY: '2' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'stuck', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'stuck');
  await emit(s.app.store, ...Array.from({ length: 20 }, (_, i) => txRecord('hook-relayer', `tx-${i}`)));
  await waitFor(() => receiver.received.length >= 2, 'deliveries to be in flight');
  // Every delivery slot is taken by a hanging receiver; the API still answers.
  const res = await s.request('GET', '/api/v1/notifications/stuck/deliveries?per_page=100');
  assert.equal(res.status, 200);
  assert.equal(res.body.pagination.total_items, 20);
  assert.equal(receiver.received.length, 2, 'never more in flight than WEBHOOK_CONCURRENCY');
});
