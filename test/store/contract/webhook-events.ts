// Contract: the outbox (due order, per-transaction order, delivery marks, requeue, the deliveries log).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { eventRow, notificationRow, relayerSeed, txRecord } from './fixtures.ts';

export function webhookEventsContract(factory: StoreFactory): void {
  test("notificationOfRelayer answers the relayer's notification, or null", async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('hooked', { notification_id: 'hook' }), relayerSeed('quiet')]);
    assert.equal(await repos.webhookEvents.notificationOfRelayer('hooked'), 'hook');
    assert.equal(await repos.webhookEvents.notificationOfRelayer('quiet'), null);
    assert.equal(await repos.webhookEvents.notificationOfRelayer('nobody'), null);
  });

  test("in a transaction that updated records, notificationOfRelayer still answers each relayer's own, and a change made in it", async (t) => {
    const store = await factory(t);
    const { repos } = store;
    await repos.relayers.seed([
      relayerSeed('hooked', { notification_id: 'hook' }),
      relayerSeed('other', { notification_id: 'other-hook' }),
      relayerSeed('quiet'),
    ]);
    for (const [k, relayer] of ['hooked', 'other', 'quiet'].entries())
      await repos.transactions.insert(txRecord(relayer, `t${k}`, 1000 + k, 'sent'), 1000 + k, k);
    const submitted = (relayer: string, k: number) => ({
      record: { ...txRecord(relayer, `t${k}`, 1000 + k, 'submitted') },
      previousStatus: 'sent' as const,
      expectedVersion: 1,
    });
    const seen = await store.atomically(async (tx) => {
      await tx.transactions.updateMany([submitted('hooked', 0), submitted('other', 1)]);
      await tx.transactions.updateMany([submitted('quiet', 2)]);
      const before = await Promise.all(
        ['hooked', 'other', 'quiet'].map((id) => tx.webhookEvents.notificationOfRelayer(id)),
      );
      await tx.relayers.update('hooked', { notification_id: null });
      return [...before, await tx.webhookEvents.notificationOfRelayer('hooked')];
    });
    assert.deepEqual(seen, ['hook', 'other-hook', null, null]);
  });

  test('due events come oldest first, and an event waits while an earlier one of its transaction is pending', async (t) => {
    const { repos } = await factory(t);
    const events = repos.webhookEvents;
    await events.insert(eventRow('a1', 'hook', 'tx-a', 100));
    await events.insert(eventRow('b1', 'hook', 'tx-b', 100));
    await events.insert(eventRow('a2', 'hook', 'tx-a', 100));
    await events.insert(eventRow('n1', 'hook', null, 150));
    await events.insert(eventRow('c1', 'hook', 'tx-c', 5000));
    const ids = async (now: number, limit = 10, exclude: ReadonlySet<number> = new Set()) =>
      (await events.due(now, limit, exclude)).map((e) => e.id);
    assert.deepEqual(await ids(1000), ['a1', 'b1', 'n1']);
    assert.deepEqual(await ids(1000, 2), ['a1', 'b1']);
    assert.deepEqual(await ids(50), []);
    assert.equal(await events.nextDueAt(), 100);
    const [a1, b1] = await events.due(1000, 2, new Set());
    // In flight (excluded): a1 still blocks a2, b1 is left out.
    assert.deepEqual(await ids(1000, 10, new Set([a1!.seq, b1!.seq])), ['n1']);
    await events.markDelivered(a1!.seq, 1, '2025-01-01T00:00:00.000Z');
    assert.deepEqual(await ids(1000), ['b1', 'a2', 'n1']);
    // A retry pushes the event back and keeps its successors waiting.
    await events.markRetry(b1!.seq, 1, 'HTTP 500', 3000, '2025-01-01T00:00:00.000Z');
    assert.deepEqual(await ids(1000), ['a2', 'n1']);
    assert.deepEqual(await ids(3000), ['a2', 'n1', 'b1']);
  });

  test('failed events stop blocking, can be requeued once failed, and the log lists them newest first', async (t) => {
    const { repos } = await factory(t);
    const events = repos.webhookEvents;
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    await events.insert(eventRow('e1', 'hook', 'tx-1', 100));
    await events.insert(eventRow('e2', 'hook', 'tx-1', 100));
    await events.insert(eventRow('x1', 'other', 'tx-2', 100));
    const e1 = (await events.get('hook', 'e1'))!;
    assert.equal(
      await events.requeue(e1.seq, 200, '2025-01-01T00:00:00.000Z'),
      false,
      'only failed events can be requeued',
    );
    await events.markFailed(e1.seq, 8, 'gave up', '2025-01-01T00:00:00.000Z');
    assert.deepEqual(
      (await events.due(1000, 10, new Set())).map((e) => e.id),
      ['e2', 'x1'],
    );
    const failed = (await events.get('hook', 'e1'))!;
    assert.deepEqual([failed.status, failed.attempts, failed.last_error], ['failed', 8, 'gave up']);
    assert.equal(await events.requeue(e1.seq, 200, '2025-01-01T00:00:01.000Z'), true);
    const requeued = (await events.get('hook', 'e1'))!;
    assert.deepEqual([requeued.status, requeued.attempts, requeued.next_attempt_at], ['pending', 0, 200]);
    assert.deepEqual(
      (await events.listByNotification('hook', 10, 0)).map((e) => e.id),
      ['e2', 'e1'],
    );
    assert.deepEqual(
      (await events.listByNotification('hook', 1, 1)).map((e) => e.id),
      ['e1'],
    );
    assert.equal(await events.countByNotification('hook'), 2);
    assert.equal(await events.get('hook', 'x1'), undefined, "another notification's event is not found under this one");
  });

  test("listByTransaction: a transaction's events, oldest first, whatever their notification, at most the limit", async (t) => {
    const { repos } = await factory(t);
    const events = repos.webhookEvents;
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    await events.insert(eventRow('e1', 'hook', 'tx-1', 100));
    await events.insert(eventRow('x1', 'hook', 'tx-2', 100));
    await events.insert(eventRow('e2', 'other', 'tx-1', 100));
    await events.insert(eventRow('e3', 'hook', 'tx-1', 100));
    assert.deepEqual(
      (await events.listByTransaction('tx-1', 10)).map((e) => e.id),
      ['e1', 'e2', 'e3'],
    );
    assert.deepEqual(
      (await events.listByTransaction('tx-1', 2)).map((e) => e.id),
      ['e1', 'e2'],
    );
    assert.deepEqual(await events.listByTransaction('tx-none', 10), []);
  });

  test('events written in one transaction keep their order per transaction', async (t) => {
    const store = await factory(t);
    await store.atomically(async (tx) => {
      for (let i = 0; i < 5; i++) await tx.webhookEvents.insert(eventRow(`e${i}`, 'hook', 'tx-1', 100));
    });
    const order: string[] = [];
    for (;;) {
      const [next] = await store.repos.webhookEvents.due(1000, 10, new Set());
      if (!next) break;
      order.push(next.id);
      await store.repos.webhookEvents.markDelivered(next.seq, 1, '2025-01-01T00:00:00.000Z');
    }
    assert.deepEqual(order, ['e0', 'e1', 'e2', 'e3', 'e4']);
    assert.equal(await store.repos.webhookEvents.nextDueAt(), null);
  });
}
