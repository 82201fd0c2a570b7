// Contract: the transactions repository (records, optimistic updates, listing order and counts, nonce uniqueness).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { relayerSeed, txRecord } from './fixtures.ts';

export function transactionsContract(factory: StoreFactory): void {
  test('a record reads back whole, by relayer and id or by id alone', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1'), relayerSeed('r2')]);
    const record = { ...txRecord('r1', 'tx-1', 1000), value: '340282366920938463463374607431768211455', hashes: ['0xab'] };
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
    assert.equal(await repos.transactions.update(txRecord('r1', 'tx-1', 1000, 'failed'), 'pending', 1), false, 'a stale version is refused');
    assert.deepEqual(await repos.transactions.get('r1', 'tx-1'), { record: sent, version: 2 });
    assert.equal(await repos.transactions.count('r1', 'pending'), 0);
    assert.equal(await repos.transactions.count('r1', 'sent'), 1);
    assert.equal(await repos.transactions.count('r1', undefined), 1);
    // Same status: the record changes, the counts do not.
    assert.equal(await repos.transactions.update({ ...sent, status_reason: 'x' }, 'sent', 2), true);
    assert.equal(await repos.transactions.count('r1', 'sent'), 1);
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
}
