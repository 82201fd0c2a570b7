// Per-transaction order: event N+1 of a transaction waits while event N is pending or retrying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS, emit, pointRelayer, startReceiver, txRecord, waitFor } from './support.ts';

test('events of one transaction arrive in the order they happened, even when the first needs retries', async (t) => {
  // The first request for tx-a fails twice; everything else succeeds at once.
  let aFailures = 0;
  const receiver = await startReceiver(t, (req) => (req.body.payload.id === 'tx-a' && req.body.payload.status === 'pending' && aFailures++ < 2 ? 500 : 200));
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_CONCURRENCY: '8' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'ordered', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'ordered');
  const statuses = ['pending', 'sent', 'submitted', 'mined', 'confirmed'] as const;
  for (const status of statuses) await emit(s.app.store, txRecord('hook-relayer', 'tx-a', status), txRecord('hook-relayer', 'tx-b', status));

  await waitFor(() => receiver.received.filter((r) => r.headers['x-webhook-id']).length === 12, 'all deliveries');
  const delivered = (tx: string) =>
    receiver.received.filter((r) => r.body.payload.id === tx).map((r) => r.body.payload.status);
  assert.deepEqual(delivered('tx-a'), ['pending', 'pending', 'pending', 'sent', 'submitted', 'mined', 'confirmed']);
  assert.deepEqual(delivered('tx-b'), [...statuses]);
  // tx-b was not held back by tx-a's retries.
  const firstB = receiver.received.findIndex((r) => r.body.payload.id === 'tx-b');
  assert.ok(firstB < 2, 'tx-b started before tx-a finished retrying');
});
