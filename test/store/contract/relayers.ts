// Contract: the relayers repository (seeding policy, listing, nonce compare-and-set).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { notificationRow, relayerSeed } from './fixtures.ts';

export function relayersContract(factory: StoreFactory): void {
  test('seeded relayers are listed by id with counts of active ones only', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('b'), relayerSeed('a'), relayerSeed('c')]);
    assert.deepEqual(
      (await repos.relayers.list(10, 0)).map((r) => r.id),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      (await repos.relayers.list(1, 1)).map((r) => r.id),
      ['b'],
    );
    assert.equal(await repos.relayers.count(), 3);
    await repos.relayers.seed([relayerSeed('a'), relayerSeed('c')]);
    assert.equal(await repos.relayers.get('b'), undefined, 'a relayer that left the config is hidden');
    assert.equal(await repos.relayers.count(), 2);
    await repos.relayers.seed([relayerSeed('a'), relayerSeed('b'), relayerSeed('c')]);
    assert.ok(await repos.relayers.get('b'), 'and visible again once configured again');
  });

  test('re-seeding rewrites config fields, keeps API changes, and moves the nonce only forward', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1', { initial_nonce: 5 })]);
    const first = (await repos.relayers.get('r1'))!;
    assert.equal(first.next_nonce, 5);
    assert.equal(first.paused, false);
    assert.equal(first.last_created_ms, 0);
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    await repos.relayers.update('r1', { paused: true, notification_id: 'hook' });
    await repos.relayers.seed([relayerSeed('r1', { name: 'renamed', initial_nonce: 3 })]);
    let row = (await repos.relayers.get('r1'))!;
    assert.equal(row.name, 'renamed');
    assert.equal(row.paused, true);
    assert.equal(row.notification_id, 'hook');
    assert.equal(row.next_nonce, 5, 'a lower initial_nonce does not move it back');
    await repos.relayers.seed([relayerSeed('r1', { initial_nonce: 9 })]);
    row = (await repos.relayers.get('r1'))!;
    assert.equal(row.next_nonce, 9, 'a higher initial_nonce takes effect');
    await repos.relayers.update('r1', { notification_id: null });
    assert.equal((await repos.relayers.get('r1'))!.notification_id, null);
  });

  test('advance is a compare-and-set on the nonce: a stale expected nonce changes nothing', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1')]);
    assert.equal(await repos.relayers.advance('r1', 0, 1, 1000), true);
    assert.equal(await repos.relayers.advance('r1', 0, 1, 2000), false);
    assert.equal(await repos.relayers.advance('unknown', 0, 1, 2000), false);
    // A send that takes no nonce (Solana, Stellar) moves only the clock.
    assert.equal(await repos.relayers.advance('r1', 1, 1, 3000), true);
    const row = (await repos.relayers.get('r1'))!;
    assert.equal(row.next_nonce, 1);
    assert.equal(row.last_created_ms, 3000);
  });

  test('getForUpdate reads the row inside a transaction, and the nonce it read can be allocated there', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1', { initial_nonce: 7 })]);
    const nonce = await store.atomically(async (tx) => {
      const row = await tx.relayers.getForUpdate('r1');
      assert.equal(await tx.relayers.getForUpdate('nope'), undefined);
      assert.equal(await tx.relayers.advance('r1', row!.next_nonce, row!.next_nonce + 1, 1), true);
      return row!.next_nonce;
    });
    assert.equal(nonce, 7);
    assert.equal((await store.repos.relayers.get('r1'))!.next_nonce, 8);
  });

  test('advanceFrom moves the nonce and clock only from the values given, and answers the row as written', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1', { initial_nonce: 7, notification_id: null })]);
    const read = (await store.repos.relayers.get('r1'))!;
    const to = { next_nonce: 9, last_created_ms: read.last_created_ms + 5 };
    const [stale, moved, again] = await store.atomically(async (tx) => [
      await tx.relayers.advanceFrom('r1', { ...read, last_created_ms: read.last_created_ms + 1 }, to),
      await tx.relayers.advanceFrom('r1', read, to),
      await tx.relayers.advanceFrom('r1', read, { next_nonce: 10, last_created_ms: to.last_created_ms }),
    ]);
    assert.equal(stale, undefined, 'another clock: not moved');
    assert.deepEqual(moved, { ...read, ...to });
    assert.equal(again, undefined, 'already moved on from the values given');
    assert.equal((await store.repos.relayers.get('r1'))!.next_nonce, 9);
    await store.repos.relayers.remove('r1');
    assert.equal(
      await store.atomically((tx) =>
        tx.relayers.advanceFrom('r1', { ...read, ...to }, { next_nonce: 11, last_created_ms: to.last_created_ms }),
      ),
      undefined,
      'a deleted relayer',
    );
  });

  test('advanceFrom with a reserve adds it to the funds ledger in the same write, exactly, and only when the nonce moved', async (t) => {
    const store = await factory(t);
    await store.repos.relayers.seed([relayerSeed('r1', { initial_nonce: 7, notification_id: null })]);
    const read = (await store.repos.relayers.get('r1'))!;
    const to = { next_nonce: 8, last_created_ms: read.last_created_ms + 1 };
    const big = 2n ** 100n + 1n;
    const [stale, moved] = await store.atomically(async (tx) => [
      await tx.relayers.advanceFrom('r1', { ...read, next_nonce: 6 }, to, 5n),
      await tx.relayers.advanceFrom('r1', read, to, big),
    ]);
    assert.equal(stale, undefined);
    assert.deepEqual(moved, { ...read, ...to, funds: { reserved: big, released: 0n } });
    assert.deepEqual(
      await store.repos.transactions.funds('r1'),
      { reserved: big, released: 0n },
      'the stale attempt reserved nothing',
    );
    const again = await store.atomically((tx) =>
      tx.relayers.advanceFrom('r1', { ...read, ...to }, { next_nonce: 9, last_created_ms: to.last_created_ms + 1 }, 3n),
    );
    assert.deepEqual(again?.funds, { reserved: big + 3n, released: 0n });
  });

  test('notificationExists answers for existing notifications only', async (t) => {
    const { repos } = await factory(t);
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    assert.equal(await repos.relayers.notificationExists('hook'), true);
    assert.equal(await repos.relayers.notificationExists('other'), false);
  });
}
