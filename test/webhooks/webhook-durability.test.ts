// Durability: an event waiting for its next attempt survives a restart; an orphaned one is dropped with a reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS, emit, pointRelayer, startReceiver, txRecord, waitFor } from './support.ts';

test('an event waiting for its next attempt is still delivered after the service stops and starts again', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const receiver = await startReceiver(t, (_req, i) => (i === 0 ? 500 : 200));
  // A backoff of 1–2 s: the event is still waiting when the service stops a moment after the failure.
  const env = { ...FAST_WEBHOOKS, WEBHOOK_BACKOFF_BASE_MS: '2000', WEBHOOK_BACKOFF_MAX_MS: '2000' };
  const first = await build(t, { dataDir, env });
  await first.request('POST', '/api/v1/notifications', { body: { id: 'durable', url: receiver.url } });
  pointRelayer(first.app.db, 'hook-relayer', 'durable');
  await emit(first.app.store, txRecord('hook-relayer', 'tx-1'));
  const waiting = await waitFor(async () => {
    const res = await first.request('GET', '/api/v1/notifications/durable/deliveries');
    return res.body.data[0]?.attempts === 1 && res.body.data[0];
  }, 'the first failed attempt');
  assert.equal(waiting.status, 'pending');
  assert.ok(waiting.next_attempt_at);
  await first.close();
  assert.equal(receiver.received.length, 1, 'the service stopped before the second attempt');

  const second = await build(t, { dataDir, env });
  await waitFor(() => receiver.received.length === 2, 'the resumed delivery');
  assert.equal(receiver.received[1]!.headers['x-webhook-id'], waiting.id);
  const after = await waitFor(async () => {
    const res = await second.request('GET', '/api/v1/notifications/durable/deliveries');
    return res.body.data[0]?.status === 'delivered' && res.body.data[0];
  }, 'the delivery to be recorded');
  assert.equal(after.attempts, 2);
});

test('a pending event is delivered after a restart even when the first service never tried it', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const receiver = await startReceiver(t);
  const first = await build(t, { dataDir, env: FAST_WEBHOOKS });
  await first.request('POST', '/api/v1/notifications', { body: { id: 'durable', url: receiver.url } });
  pointRelayer(first.app.db, 'hook-relayer', 'durable');
  await first.close();
  // Written while no dispatcher runs (as if the process died right after the commit).
  const { openDatabase } = await import('../../src/store/sqlite/db.ts');
  const { createSqliteStore } = await import('../../src/store/sqlite/store.ts');
  const store = createSqliteStore(openDatabase(dataDir));
  await emit(store, txRecord('hook-relayer', 'tx-1'));
  await store.close();
  await build(t, { dataDir, env: FAST_WEBHOOKS });
  await waitFor(() => receiver.received.length === 1, 'the delivery after restart');
});

test('an event whose notification was deleted is dropped as failed with a logged reason', async (t) => {
  const receiver = await startReceiver(t, () => 500);
  // The retry comes 1–2 s after the first failure, well after the delete below.
  const s = await build(t, {
    env: { ...FAST_WEBHOOKS, WEBHOOK_BACKOFF_BASE_MS: '2000', WEBHOOK_BACKOFF_MAX_MS: '2000' },
  });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'doomed', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'doomed');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  await waitFor(() => receiver.received.length === 1, 'the first attempt');
  pointRelayer(s.app.db, 'hook-relayer', null);
  const deleted = await s.request('DELETE', '/api/v1/notifications/doomed');
  assert.equal(deleted.status, 200);

  const line = await waitFor(
    () => s.logs.find((l) => l.msg === 'webhook event dropped: its notification was deleted'),
    'the drop to be logged',
  );
  assert.equal(line.notificationId, 'doomed');
  assert.equal(line.level, 40);
  const row = s.app.db.prepare('SELECT status, last_error FROM webhook_events WHERE id = ?').get(line.eventId) as {
    status: string;
    last_error: string;
  };
  assert.deepEqual(row, { status: 'failed', last_error: 'notification deleted' });
  assert.equal(receiver.received.length, 1);
});

test('a delivery cut off by shutdown does not count as an attempt and is sent again after restart', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const receiver = await startReceiver(t, (_req, i) => (i === 0 ? 'hang' : 200));
  const first = await build(t, { dataDir, env: FAST_WEBHOOKS });
  await first.request('POST', '/api/v1/notifications', { body: { id: 'durable', url: receiver.url } });
  pointRelayer(first.app.db, 'hook-relayer', 'durable');
  await emit(first.app.store, txRecord('hook-relayer', 'tx-1'));
  await waitFor(() => receiver.received.length === 1, 'the hanging attempt');
  await first.close();

  const second = await build(t, { dataDir, env: FAST_WEBHOOKS });
  const event = await waitFor(async () => {
    const res = await second.request('GET', '/api/v1/notifications/durable/deliveries');
    return res.body.data[0]?.status === 'delivered' && res.body.data[0];
  }, 'delivery after restart');
  assert.equal(event.attempts, 1);
  assert.equal(receiver.received[1]!.headers['x-webhook-id'], receiver.received[0]!.headers['x-webhook-id']);
});
