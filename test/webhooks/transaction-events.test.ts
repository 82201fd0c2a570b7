// End to end through the HTTP API: send, replace and cancel each produce one signed transaction_update, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS, SIGNING_KEY, startReceiver, waitFor } from './support.ts';

const SEND = { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' };

/** The example's networks, with the devnet mining hourly: the transaction stays in flight while the test replaces and cancels it. */
const example = JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')) as {
  networks: Array<Record<string, unknown>>;
};
const networks = example.networks.map((n) =>
  n.network === 'devnet' ? { ...n, devnet: { block_time_ms: 3_600_000 }, resubmit_timeout_ms: 3_600_000 } : n,
) as never;

test('send, replace and cancel of a transaction each reach the webhook as the API returned the record, in order', async (t) => {
  const receiver = await startReceiver(t);
  const s = await build(t, {
    env: FAST_WEBHOOKS,
    config: { networks, notifications: [{ id: 'example-webhook', url: receiver.url, signing_key: SIGNING_KEY }] },
  });
  // As the README's walk-through does: config.example.json defines example-webhook, no relayer uses it yet.
  await s.request('PATCH', '/api/v1/relayers/sepolia-example', { body: { notification_id: 'example-webhook' } });
  const sent = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', { body: SEND });
  assert.equal(sent.status, 200, sent.text);
  const txId = sent.body.data.id;
  const replaced = await s.request('PUT', `/api/v1/relayers/sepolia-example/transactions/${txId}`, {
    body: { ...SEND, speed: 'fastest' },
  });
  assert.equal(replaced.status, 200, replaced.text);
  const canceled = await s.request('DELETE', `/api/v1/relayers/sepolia-example/transactions/${txId}`);
  assert.equal(canceled.status, 200, canceled.text);

  // Each answer is one event; each broadcast (sent → submitted) is another, in commit order.
  const rows = () =>
    s.app.db.prepare('SELECT COUNT(*) FROM webhook_events WHERE transaction_id = ?').pluck().get(txId) as number;
  await waitFor(
    async () =>
      (await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${txId}`)).body.data.status ===
      'submitted',
    'the NOOP submitted',
  );
  await waitFor(() => receiver.received.length === rows(), 'every event delivered');
  const payloads = receiver.received.map((r) => r.body.payload);
  const at = [sent, replaced, canceled].map((r) =>
    payloads.findIndex((p) => JSON.stringify(p) === JSON.stringify({ payload_type: 'transaction', ...r.body.data })),
  );
  assert.ok(
    at[0]! === 0 && at[1]! > at[0]! && at[2]! > at[1]!,
    `the answers are delivered as returned, in order (${at})`,
  );
  // A broadcast that lands after the next change is not written (the record moved on), so 'submitted' may be skipped.
  assert.ok(payloads.every((p) => p.status === 'sent' || p.status === 'submitted'));
  assert.equal(payloads.at(-1).status, 'submitted');
  assert.equal(payloads.at(-1).is_canceled, true);
  for (const r of receiver.received) {
    assert.equal(r.body.event, 'transaction_update');
    assert.equal(r.headers['x-signature'], createHmac('sha256', SIGNING_KEY).update(r.raw).digest('base64'));
  }
  assert.equal(new Set(receiver.received.map((r) => r.headers['x-webhook-id'])).size, receiver.received.length);
});

test('PATCH of a relayer moves its events to another notification, and null stops them', async (t) => {
  const receiver = await startReceiver(t);
  const other = await startReceiver(t);
  const s = await build(t, {
    devnet: true,
    env: FAST_WEBHOOKS,
    config: { notifications: [{ id: 'example-webhook', url: receiver.url }] },
  });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'other', url: other.url } });
  const moved = await s.request('PATCH', '/api/v1/relayers/sepolia-example', { body: { notification_id: 'other' } });
  assert.equal(moved.status, 200, moved.text);
  await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', { body: SEND });
  await waitFor(() => other.received.length >= 1, 'the webhook at the new notification');

  const off = await s.request('PATCH', '/api/v1/relayers/sepolia-example', { body: { notification_id: null } });
  assert.equal(off.status, 200, off.text);
  const second = (await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', { body: SEND })).body.data;
  await waitFor(
    async () =>
      ['confirmed'].includes(
        (await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${second.id}`)).body.data.status,
      ),
    'the second send confirmed',
  );
  const events = s.app.db
    .prepare('SELECT COUNT(*) FROM webhook_events WHERE transaction_id = ?')
    .pluck()
    .get(second.id);
  assert.equal(events, 0, 'no event without a notification');
  assert.equal(receiver.received.length, 0);
});
