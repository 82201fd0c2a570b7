// Contract: the transactions repository (records, optimistic updates, listing order and counts, nonce uniqueness).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { relayerSeed, txRecord } from './fixtures.ts';
import type { TransactionStatus } from '../../../src/domain/types.ts';

export function transactionsContract(factory: StoreFactory): void {
  test('the funds ledger: zeros at first, exact sums past 2^64 and 2^128, releases, and a rollback leaves it as it was', async (t) => {
    const store = await factory(t);
    const { repos } = store;
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: 0n, released: 0n });
    const big = 2n ** 128n + 7n;
    await repos.transactions.moveFunds('r1', big, 0n);
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: big, released: 0n });
    await repos.transactions.moveFunds('r1', 2n ** 64n + 1n, 0n);
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: big + 2n ** 64n + 1n, released: 0n });
    await repos.transactions.moveFunds('r1', -big, big);
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: 2n ** 64n + 1n, released: big });
    // Two moves in one transaction sum, and apply once it commits.
    await store.atomically(async (tx) => {
      await tx.transactions.moveFunds('r1', 3n, 0n);
      await tx.transactions.moveFunds('r1', -1n, 1n);
    });
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: 2n ** 64n + 3n, released: big + 1n });
    await repos.transactions.moveFunds('r1', -2n, -1n);
    await assert.rejects(
      store.atomically(async (tx) => {
        await tx.transactions.moveFunds('r1', 5n, 0n);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await repos.transactions.funds('r1'), { reserved: 2n ** 64n + 1n, released: big });
    assert.deepEqual(await repos.transactions.funds('r2'), { reserved: 0n, released: 0n }, 'per relayer');
  });

  test('a record reads back whole, by relayer and id or by id alone', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    const record = {
      ...txRecord('r1', 'tx-1', 1000),
      value: '340282366920938463463374607431768211455',
      hashes: ['0xab'],
    };
    await repos.transactions.insert(record, 1000, 0);
    assert.deepEqual(await repos.transactions.get('r1', 'tx-1'), { record, version: 1 });
    assert.deepEqual(await repos.transactions.find('tx-1'), { record, version: 1 });
    assert.equal(await repos.transactions.get('r2', 'tx-1'), undefined, 'another relayer does not see it');
    assert.equal(await repos.transactions.find('tx-2'), undefined);
  });

  test('update writes only at the version read, bumps it, and moves the status counts', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1')]);
    await repos.transactions.insert(txRecord('r1', 'tx-1', 1000), 1000, 0);
    const sent = txRecord('r1', 'tx-1', 1000, 'sent');
    assert.equal(await repos.transactions.update(sent, 'pending', 1), true);
    assert.equal(
      await repos.transactions.update(txRecord('r1', 'tx-1', 1000, 'failed'), 'pending', 1),
      false,
      'a stale version is refused',
    );
    assert.deepEqual(await repos.transactions.get('r1', 'tx-1'), { record: sent, version: 2 });
    assert.equal(await repos.transactions.count('r1', 'pending'), 0);
    assert.equal(await repos.transactions.count('r1', 'sent'), 1);
    assert.equal(await repos.transactions.count('r1', undefined), 1);
    // Same status: the record changes, the counts do not.
    assert.equal(await repos.transactions.update({ ...sent, status_reason: 'x' }, 'sent', 2), true);
    assert.equal(await repos.transactions.count('r1', 'sent'), 1);
  });

  test('findMany and updateMany: several at once, each written only at its version, counts and history as update', async (t) => {
    const store = await factory(t);
    const { repos } = store;
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    for (const [k, id] of ['a', 'b', 'c'].entries())
      await repos.transactions.insert(txRecord(k === 2 ? 'r2' : 'r1', id, 1000 + k, 'sent'), 1000 + k, k);
    const found = await repos.transactions.findMany(['a', 'c', 'none']);
    assert.deepEqual(found.map((s) => [s.record.id, s.version]).sort(), [
      ['a', 1],
      ['c', 1],
    ]);
    assert.deepEqual(await repos.transactions.findMany([]), []);
    await repos.transactions.update({ ...txRecord('r1', 'b', 1001, 'sent'), status_reason: 'moved on' }, 'sent', 1);
    const submitted = (id: string, relayer = 'r1', at = 1000) => ({
      ...txRecord(relayer, id, at, 'submitted'),
      hash: `0x${id}`,
    });
    const written = await store.atomically((tx) =>
      tx.transactions.updateMany([
        { record: submitted('a'), previousStatus: 'sent', expectedVersion: 1 },
        { record: submitted('b', 'r1', 1001), previousStatus: 'sent', expectedVersion: 1 },
        { record: submitted('c', 'r2', 1002), previousStatus: 'sent', expectedVersion: 1 },
      ]),
    );
    assert.deepEqual(written, [true, false, true], 'b was changed since version 1');
    assert.deepEqual(await repos.transactions.find('a'), { record: submitted('a'), version: 2 });
    assert.equal((await repos.transactions.find('b'))!.record.status, 'sent');
    assert.deepEqual(
      [
        await repos.transactions.count('r1', 'sent'),
        await repos.transactions.count('r1', 'submitted'),
        await repos.transactions.count('r2', 'submitted'),
      ],
      [1, 1, 1],
    );
    assert.deepEqual(
      (await repos.transactions.history('c')).map((h) => [h.version, h.record.status]),
      [
        [1, 'sent'],
        [2, 'submitted'],
      ],
    );
  });

  test('listing is newest first (created time, then id, descending) with status filter, limit and offset', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    const rows: Array<[string, number, 'pending' | 'confirmed']> = [
      ['a', 1000, 'pending'],
      ['b', 3000, 'confirmed'],
      ['c', 2000, 'pending'],
      ['e', 2000, 'confirmed'],
      ['d', 4000, 'pending'],
    ];
    for (const [id, ms, status] of rows) await repos.transactions.insert(txRecord('r1', id, ms, status), ms, null);
    await repos.transactions.insert(txRecord('r2', 'other', 5000), 5000, null);
    const ids = async (status: 'pending' | 'confirmed' | undefined, limit: number, offset: number) =>
      (await repos.transactions.list('r1', status, limit, offset)).map((r) => r.id);
    assert.deepEqual(await ids(undefined, 10, 0), ['d', 'b', 'e', 'c', 'a']);
    assert.deepEqual(await ids(undefined, 2, 1), ['b', 'e']);
    assert.deepEqual(await ids('pending', 10, 0), ['d', 'c', 'a']);
    assert.deepEqual(await ids('confirmed', 1, 1), ['e']);
    assert.deepEqual(await ids(undefined, 10, 10), []);
    assert.equal(await repos.transactions.count('r1', undefined), 5);
    assert.equal(await repos.transactions.count('r1', 'pending'), 3);
    assert.equal(await repos.transactions.count('r1', 'failed'), 0);
    assert.equal(await repos.transactions.count('nobody', undefined), 0);
  });

  test('a nonce is used once per relayer; no-nonce records and other relayers do not collide', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    await repos.transactions.insert(txRecord('r1', 'a', 1000), 1000, 0);
    await assert.rejects(repos.transactions.insert(txRecord('r1', 'b', 1001), 1001, 0));
    await repos.transactions.insert(txRecord('r2', 'c', 1002), 1002, 0);
    await repos.transactions.insert(txRecord('r1', 'd', 1003), 1003, null);
    await repos.transactions.insert(txRecord('r1', 'e', 1004), 1004, null);
    assert.equal(await repos.transactions.count('r1', undefined), 3, 'the refused insert left no count behind');
  });

  test('listUnfinished: non-final transactions with a nonce, lowest nonce first, limited; update moves the nonce', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    const rows: Array<[string, number | null, TransactionStatus]> = [
      ['a', 4, 'submitted'],
      ['b', 1, 'confirmed'],
      ['c', 2, 'sent'],
      ['d', 0, 'mined'],
      ['e', null, 'pending'],
      ['f', 3, 'pending'],
      ['g', 5, 'failed'],
    ];
    for (const [i, [id, nonce, status]] of rows.entries()) {
      await repos.transactions.insert(
        { ...txRecord('r1', id, 1000 + i, status), ...(nonce === null ? {} : { nonce }) },
        1000 + i,
        nonce,
      );
    }
    await repos.transactions.insert({ ...txRecord('r2', 'other', 2000, 'sent'), nonce: 0 }, 2000, 0);
    const ids = async (limit: number) => (await repos.transactions.listUnfinished('r1', limit)).map((s) => s.record.id);
    assert.deepEqual(await ids(10), ['d', 'c', 'f', 'a']);
    assert.deepEqual(await ids(2), ['d', 'c']);
    const [first] = await repos.transactions.listUnfinished('r1', 1);
    assert.equal(first!.version, 1);
    // A new nonce (EVM re-nonce) moves the row in the order and in the uniqueness index; a final status leaves the list.
    assert.equal(await repos.transactions.update({ ...first!.record, nonce: 9 }, 'mined', 1), true);
    assert.deepEqual(await ids(10), ['c', 'f', 'a', 'd']);
    await repos.transactions.insert({ ...txRecord('r1', 'h', 3000, 'sent'), nonce: 0 }, 3000, 0);
    await assert.rejects(
      repos.transactions.insert({ ...txRecord('r1', 'i', 3001, 'sent'), nonce: 9 }, 3001, 9),
      'nonce 9 is taken by the moved row',
    );
    const a = (await repos.transactions.get('r1', 'a'))!;
    assert.equal(await repos.transactions.update({ ...a.record, status: 'confirmed' }, 'submitted', a.version), true);
    assert.deepEqual(await ids(10), ['h', 'c', 'f', 'd']);
  });

  test("getByNonce: the relayer's transaction holding that nonce, or nothing", async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    const a = { ...txRecord('r1', 'a', 1000, 'sent'), nonce: 0 };
    const b = { ...txRecord('r1', 'b', 1001, 'confirmed'), nonce: 7 };
    await repos.transactions.insert(a, 1000, 0);
    await repos.transactions.insert(b, 1001, 7);
    await repos.transactions.insert(txRecord('r1', 'c', 1002), 1002, null);
    await repos.transactions.insert({ ...txRecord('r2', 'd', 1003), nonce: 1 }, 1003, 1);
    assert.deepEqual(await repos.transactions.getByNonce('r1', 0), { record: a, version: 1 });
    assert.deepEqual(await repos.transactions.getByNonce('r1', 7), { record: b, version: 1 }, 'final ones too');
    assert.equal(
      await repos.transactions.getByNonce('r1', 1),
      undefined,
      "another relayer's nonce is not this relayer's",
    );
    assert.equal(await repos.transactions.getByNonce('r1', 2), undefined);
    assert.equal(await repos.transactions.getByNonce('nobody', 0), undefined);
    // An update keeps the row findable by its nonce, at the new version.
    assert.equal(await repos.transactions.update({ ...a, status: 'submitted' }, 'sent', 1), true);
    assert.equal((await repos.transactions.getByNonce('r1', 0))?.version, 2);
  });
  test('history keeps every state written, oldest first, and nothing from a stale update or a rollback', async (t) => {
    const store = await factory(t);
    const { repos } = store;
    await repos.relayers.seed([relayerSeed('r1')]);
    await repos.transactions.insert(txRecord('r1', 'tx-1', 1000), 1000, 0);
    const before = Date.now();
    const sent = { ...txRecord('r1', 'tx-1', 1000, 'sent'), hash: '0xaa' };
    assert.equal(await repos.transactions.update(sent, 'pending', 1), true);
    assert.equal(await repos.transactions.update(txRecord('r1', 'tx-1', 1000, 'failed'), 'pending', 1), false);
    await assert.rejects(
      store.atomically(async (tx) => {
        await tx.transactions.update({ ...sent, status: 'confirmed' }, 'sent', 2);
        throw new Error('rolled back');
      }),
    );
    await repos.transactions.update({ ...sent, status: 'submitted' }, 'sent', 2);
    const history = await repos.transactions.history('tx-1');
    assert.deepEqual(
      history.map((h) => [h.version, h.record.status]),
      [
        [1, 'pending'],
        [2, 'sent'],
        [3, 'submitted'],
      ],
    );
    assert.equal(history[1]!.record.hash, '0xaa');
    assert.ok(history.every((h, i) => i === 0 || h.at_ms >= history[i - 1]!.at_ms));
    assert.ok(
      history[2]!.at_ms >= before - 1000 && history[2]!.at_ms <= Date.now() + 1000,
      'written at the time of the write',
    );
    assert.deepEqual(await repos.transactions.history('tx-none'), []);
  });
}
