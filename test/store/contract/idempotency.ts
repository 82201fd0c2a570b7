// Contract: idempotency keys. One entry per (relayer, key); a taken key stays with its first writer, unless expired;
// two transactions racing on one key: the second, once the first commits, finds it taken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';

const claim = (key: string, transactionId: string, requestHash = 'h1') => ({ key, requestHash, transactionId });

export function idempotencyContract(factory: StoreFactory): void {
  test('a key is written once per relayer, kept by its first writer, replaced only once expired, and pruned by age', async (t) => {
    const { repos } = await factory(t);
    assert.deepEqual(await repos.idempotency.insert('r1', [claim('a', 't1'), claim('b', 't2')], 1_000, 0), ['a', 'b']);
    assert.deepEqual(
      await repos.idempotency.insert('r1', [claim('a', 't3', 'h2'), claim('c', 't4')], 2_000, 500),
      ['c'],
      "'a' is taken",
    );
    assert.deepEqual(
      await repos.idempotency.insert('r2', [claim('a', 't5')], 2_000, 500),
      ['a'],
      'keys are per relayer',
    );
    assert.deepEqual(await repos.idempotency.get('r1', 'a'), {
      relayerId: 'r1',
      key: 'a',
      requestHash: 'h1',
      transactionId: 't1',
      createdMs: 1_000,
    });
    assert.equal(await repos.idempotency.get('r1', 'zzz'), undefined);
    // Expired (created before 1_500): replaced.
    assert.deepEqual(await repos.idempotency.insert('r1', [claim('a', 't6', 'h3')], 3_000, 1_500), ['a']);
    assert.deepEqual(await repos.idempotency.get('r1', 'a'), {
      relayerId: 'r1',
      key: 'a',
      requestHash: 'h3',
      transactionId: 't6',
      createdMs: 3_000,
    });
    assert.equal(await repos.idempotency.prune(2_500), 3, "b (1_000), c and r2's a (2_000)");
    assert.deepEqual(
      [await repos.idempotency.get('r1', 'b'), (await repos.idempotency.get('r1', 'a'))?.transactionId],
      [undefined, 't6'],
    );
  });

  test('two transactions writing one key: the first to commit keeps it; a rolled-back write leaves it free', async (t) => {
    const store = await factory(t);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = store.atomically(async (tx) => {
      const written = await tx.idempotency.insert('r1', [claim('k', 'first')], 1_000, 0);
      await held;
      return written;
    });
    // Started while the first is open. Whichever insert reaches the key first holds it (SQLite: the write lock;
    // PostgreSQL: the key's index entry) and so commits first: the first is held open 200 ms, and a second that got
    // there before it commits at once (on a busy PostgreSQL pool it can). Either way exactly one of them writes the
    // key, and the stored entry is that one's.
    const second = store.atomically((tx) => tx.idempotency.insert('r1', [claim('k', 'second')], 1_000, 0));
    setTimeout(release, 200);
    const written = { first: await first, second: await second };
    assert.deepEqual([...written.first, ...written.second], ['k'], 'exactly one transaction wrote the key');
    const winner = written.first.length ? 'first' : 'second';
    assert.equal((await store.repos.idempotency.get('r1', 'k'))?.transactionId, winner);

    await assert.rejects(
      store.atomically(async (tx) => {
        await tx.idempotency.insert('r1', [claim('rolled', 'gone')], 1_000, 0);
        throw new Error('rolled back');
      }),
    );
    assert.equal(await store.repos.idempotency.get('r1', 'rolled'), undefined);
    assert.deepEqual(await store.repos.idempotency.insert('r1', [claim('rolled', 'kept')], 1_000, 0), ['rolled']);
  });
}
