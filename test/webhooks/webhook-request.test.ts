// What a receiver gets: the body, the headers, and a signature that verifies with the key and only with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS, SIGNING_KEY, emit, pointRelayer, startReceiver, txRecord, waitFor } from './support.ts';

function verifies(key: string, raw: Buffer, signature: string | string[] | undefined): boolean {
  const expected = createHmac('sha256', key).update(raw).digest();
  const given = Buffer.from(String(signature ?? ''), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

test('a signed webhook carries the event body, its id and timestamp, and an X-Signature that verifies with the key', async (t) => {
  const receiver = await startReceiver(t);
  const s = await build(t, { env: FAST_WEBHOOKS });
  const created = await s.request('POST', '/api/v1/notifications', {
    body: { id: 'signed', url: receiver.url, signing_key: SIGNING_KEY },
  });
  assert.equal(created.status, 201);
  pointRelayer(s.app.db, 'hook-relayer', 'signed');
  await emit(
    s.app.store,
    txRecord('hook-relayer', 'tx-1', 'pending', { value: '340282366920938463463374607431768211455' }),
  );

  const [hit] = await waitFor(() => receiver.received.length > 0 && receiver.received, 'the webhook');
  assert.equal(hit!.headers['content-type'], 'application/json');
  assert.ok(verifies(SIGNING_KEY, hit!.raw, hit!.headers['x-signature']), 'signature verifies with the key');
  assert.ok(
    !verifies('another-key-0123456789abcdefghijklmnopqrs', hit!.raw, hit!.headers['x-signature']),
    'and fails with another',
  );
  const body = hit!.body;
  assert.equal(body.event, 'transaction_update');
  assert.match(body.id, /^[0-9a-f-]{36}$/);
  assert.equal(hit!.headers['x-webhook-id'], body.id);
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  assert.ok(!Number.isNaN(Date.parse(String(hit!.headers['x-webhook-timestamp']))));
  assert.deepEqual(body.payload, {
    payload_type: 'transaction',
    ...txRecord('hook-relayer', 'tx-1', 'pending', { value: '340282366920938463463374607431768211455' }),
  });
  assert.ok(!s.rawLogs().includes(SIGNING_KEY), 'the key never reaches the log');

  const deliveries = await waitFor(async () => {
    const res = await s.request('GET', '/api/v1/notifications/signed/deliveries');
    return res.body.data[0]?.status === 'delivered' && res.body;
  }, 'the delivery to be recorded');
  assert.equal(deliveries.data[0].id, body.id);
  assert.equal(deliveries.data[0].attempts, 1);
  assert.equal(deliveries.data[0].next_attempt_at, null);
});

test('a notification without a signing key sends no signature header', async (t) => {
  const receiver = await startReceiver(t);
  const s = await build(t, { env: FAST_WEBHOOKS });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'unsigned', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'unsigned');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const [hit] = await waitFor(() => receiver.received.length > 0 && receiver.received, 'the webhook');
  assert.equal(hit!.headers['x-signature'], undefined);
  assert.ok(hit!.headers['x-webhook-id']);
});

test('a relayer without a notification produces no event, and a rolled-back change leaves none', async (t) => {
  const s = await build(t, { env: FAST_WEBHOOKS });
  pointRelayer(s.app.db, 'quiet-relayer', null);
  await emit(s.app.store, txRecord('quiet-relayer', 'tx-1'));
  pointRelayer(s.app.db, 'hook-relayer', 'example-webhook');
  const { createOutbox } = await import('../../src/domain/webhooks/outbox.ts');
  const outbox = createOutbox();
  await assert.rejects(
    s.app.store.atomically(async (tx) => {
      await outbox.transactionChanged(tx, txRecord('hook-relayer', 'tx-2'));
      throw new Error('the state change failed');
    }),
  );
  assert.equal(s.app.db.prepare('SELECT COUNT(*) FROM webhook_events').pluck().get(), 0);
});
