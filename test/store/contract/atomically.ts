// Contract: atomically() commits or rolls back everything together, and nothing from outside leaks into it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { notificationRow, pause, relayerSeed, txRecord } from './fixtures.ts';

export function atomicallyContract(factory: StoreFactory): void {
  test('a resolved callback commits the writes of every repository and returns its value', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    const value = await store.atomically(async (tx) => {
      await tx.transactions.insert(txRecord('r1', 'tx-1', 1000), 1000, 0);
      await tx.notifications.insertIfAbsent(notificationRow('n1'));
      await tx.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 5 });
      return 'done';
    });
    assert.equal(value, 'done');
    assert.ok(await store.repos.transactions.get('r1', 'tx-1'));
    assert.ok(await store.repos.notifications.get('n1'));
    assert.ok(await store.repos.jobs.get('check', 'tx-1'));
  });

  test('a rejected callback rolls back every write and passes the rejection on', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    const failure = new Error('the state change failed');
    await assert.rejects(
      store.atomically(async (tx) => {
        assert.equal(await tx.relayers.advance('r1', 0, 1, 1000), true);
        await tx.transactions.insert(txRecord('r1', 'tx-1', 1000), 1000, 0);
        await tx.jobs.schedule({ kind: 'check', subject: 'tx-1', dueAt: 5 });
        throw failure;
      }),
      (err) => err === failure,
    );
    assert.equal(await store.repos.transactions.get('r1', 'tx-1'), undefined);
    assert.equal(await store.repos.transactions.count('r1', undefined), 0);
    assert.equal((await store.repos.relayers.get('r1'))!.next_nonce, 0);
    assert.equal(await store.repos.jobs.get('check', 'tx-1'), undefined);
  });

  test('after-commit hooks run once the transaction has committed, and never after a rollback', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    const seen: string[] = [];
    let read: Promise<unknown> | undefined;
    await store.atomically(async (tx) => {
      tx.afterCommit(() => {
        seen.push('committed');
        // Committed and visible by the time the hook runs (the read itself may take a round trip).
        read = store.repos.transactions.get('r1', 'tx-1').then((s) => seen.push(s ? 'visible' : 'missing'));
      });
      await tx.transactions.insert(txRecord('r1', 'tx-1', 1000), 1000, 0);
      seen.push('body done');
    });
    await read;
    assert.deepEqual(seen, ['body done', 'committed', 'visible']);
    await assert.rejects(
      store.atomically(async (tx) => {
        tx.afterCommit(() => seen.push('rolled back hook ran'));
        throw new Error('no');
      }),
    );
    assert.deepEqual(seen, ['body done', 'committed', 'visible']);
  });

  test("a transaction's repositories refuse to work after it ended", async (t) => {
    const store = await factory(t);
    let leaked: Parameters<Parameters<typeof store.atomically>[0]>[0] | undefined;
    await store.atomically(async (tx) => {
      leaked = tx;
    });
    await assert.rejects(leaked!.relayers.count(), /ended/);
    assert.throws(() => leaked!.afterCommit(() => undefined), /ended/);
  });

  test('a nested atomically() or store.repos used inside a transaction is refused instead of hanging', async (t) => {
    const store = await factory(t);
    await assert.rejects(
      store.atomically(async () => store.atomically(async () => 1)),
      /inside atomically/,
    );
    await assert.rejects(
      store.atomically(async () => store.repos.relayers.count()),
      /inside atomically/,
    );
    // The store still works afterwards.
    assert.equal(await store.repos.relayers.count(), 0);
  });

  test('work from outside never joins a transaction suspended at an await: it survives that rollback', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    let suspended!: () => void;
    let resume!: () => void;
    const reached = new Promise<void>((resolve) => (suspended = resolve));
    const released = new Promise<void>((resolve) => (resume = resolve));
    const inside = store.atomically(async (tx) => {
      await tx.transactions.insert(txRecord('r1', 'inside', 1000), 1000, 0);
      suspended();
      await released;
      throw new Error('roll back');
    });
    await reached;
    // Issued by other code (another request) while the transaction waits at its await.
    const outside = store.repos.notifications.insertIfAbsent(notificationRow('outside'));
    const outsideRead = store.repos.transactions.get('r1', 'inside');
    await pause(10);
    resume();
    await assert.rejects(inside, /roll back/);
    assert.equal(await outside, true);
    assert.equal(await outsideRead, undefined, 'an outside read never sees writes that are then rolled back');
    assert.ok(await store.repos.notifications.get('outside'), 'the outside write was not undone with the transaction');
    assert.equal(await store.repos.transactions.get('r1', 'inside'), undefined);
  });

  test('concurrent transactions each see the others committed and none lost', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1')]);
    // Read-modify-write of the nonce under getForUpdate: 25 at once must give 25 distinct, contiguous nonces.
    const nonces = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        store.atomically(async (tx) => {
          const relayer = (await tx.relayers.getForUpdate('r1'))!;
          const nonce = relayer.next_nonce;
          if (i % 3 === 0) await pause(1);
          assert.equal(await tx.relayers.advance('r1', nonce, nonce + 1, 1000 + nonce), true);
          await tx.transactions.insert(txRecord('r1', `tx-${i}`, 1000 + nonce), 1000 + nonce, nonce);
          return nonce;
        }),
      ),
    );
    assert.deepEqual(
      [...nonces].sort((a, b) => a - b),
      Array.from({ length: 25 }, (_, i) => i),
    );
    assert.equal((await store.repos.relayers.get('r1'))!.next_nonce, 25);
    assert.equal(await store.repos.transactions.count('r1', undefined), 25);
  });

  test('onJobsScheduled rings after the commit of a transaction that scheduled a job, not after a rollback', async (t) => {
    const store = await factory(t);
    let rings = 0;
    const unsubscribe = store.onJobsScheduled(() => rings++);
    await store.atomically(async (tx) => {
      await tx.jobs.schedule({ kind: 'check', subject: 'a', dueAt: 1 });
      await tx.jobs.schedule({ kind: 'check', subject: 'b', dueAt: 1 });
      assert.equal(rings, 0, 'not before the commit');
    });
    await pause(0);
    assert.ok(rings >= 1);
    const afterCommit = rings;
    await assert.rejects(
      store.atomically(async (tx) => {
        await tx.jobs.schedule({ kind: 'check', subject: 'c', dueAt: 1 });
        throw new Error('no');
      }),
    );
    await pause(0);
    assert.equal(rings, afterCommit);
    await store.repos.jobs.schedule({ kind: 'check', subject: 'd', dueAt: 1 });
    await pause(0);
    assert.ok(rings > afterCommit, 'a lone schedule rings too');
    unsubscribe();
  });
}
