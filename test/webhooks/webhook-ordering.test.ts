// Per-transaction order: event N+1 of a transaction waits while event N is pending or retrying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS, emit, pointRelayer, startReceiver, txRecord, waitFor } from './support.ts';

test('events of one transaction arrive in the order they happened, even when the first needs retries', async (t) => {
  // The first request for tx-a fails at least twice, and until tx-b's first event has arrived: tx-b held back behind
  // tx-a's retries would never arrive, so the test waits on order, not on how fast the retries come.
  let aFailures = 0;
  let bArrived = false;
  const receiver = await startReceiver(t, (req) => {
    if (req.body.payload.id === 'tx-b') bArrived = true;
    const failA =
      req.body.payload.id === 'tx-a' && req.body.payload.status === 'pending' && (aFailures < 2 || !bArrived);
    if (failA) aFailures++;
    return failA ? 500 : 200;
  });
  const s = await build(t, { env: { ...FAST_WEBHOOKS, WEBHOOK_CONCURRENCY: '8' } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'ordered', url: receiver.url } });
  pointRelayer(s.app.db, 'hook-relayer', 'ordered');
  const statuses = ['pending', 'sent', 'submitted', 'mined', 'confirmed'] as const;
  for (const status of statuses)
    await emit(s.app.store, txRecord('hook-relayer', 'tx-a', status), txRecord('hook-relayer', 'tx-b', status));

  const delivered = (tx: string) =>
    receiver.received.filter((r) => r.body.payload.id === tx).map((r) => r.body.payload.status);
  await waitFor(
    () => delivered('tx-a').at(-1) === 'confirmed' && delivered('tx-b').at(-1) === 'confirmed',
    'all deliveries',
  );
  assert.deepEqual(delivered('tx-a'), [
    ...Array(aFailures + 1).fill('pending'),
    'sent',
    'submitted',
    'mined',
    'confirmed',
  ]);
  assert.ok(aFailures >= 2, `tx-a's first event failed ${aFailures} times`);
  assert.deepEqual(delivered('tx-b'), [...statuses]);
  // tx-b was not held back by tx-a's retries: it arrived before tx-a's first event got through.
  const firstB = receiver.received.findIndex((r) => r.body.payload.id === 'tx-b');
  const aThrough = receiver.received.findIndex((r) => r.body.payload.id === 'tx-a' && r.body.payload.status === 'sent');
  assert.ok(firstB < aThrough, 'tx-b started before tx-a finished retrying');
});
