// Contract: key pool lanes (issue 44). A lane key reads and moves its lane (nonce compare-and-set, its own funds
// ledger row, its transactions under its lane with nonces unique per lane); lanes are saved, limited and judged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { relayerSeed, txRecord } from './fixtures.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const lanes = (max = 16) => [
  { relayer_id: 'p', address: A, signer_id: 'sa', position: 0, max_pending: max },
  { relayer_id: 'p', address: B, signer_id: 'sb', position: 1, max_pending: max },
];

export function lanesContract(factory: StoreFactory): void {
  test('a lane key reads its lane as a relayer row and moves only its own nonce and ledger', async (t) => {
    const store = await factory(t);
    const { repos } = store;
    await repos.relayers.seed([relayerSeed('p', { address: A, signer_id: 'sa', initial_nonce: 4 })]);
    await repos.relayers.saveLanes('p', lanes());
    assert.deepEqual(
      (await repos.relayers.lanes('p')).map((l) => [l.address, l.position, l.next_nonce, l.state]),
      [
        [A, 0, 0, 'active'],
        [B, 1, 0, 'active'],
      ],
    );
    const key = `p#${B}`;
    const lane = (await repos.relayers.get(key))!;
    assert.deepEqual(
      [lane.id, lane.address, lane.signer_id, lane.next_nonce, lane.name],
      [key, B, 'sb', 0, 'relayer p'],
    );

    const moved = await store.atomically((tx) =>
      tx.relayers.advanceFrom(key, lane, { next_nonce: 2, last_created_ms: 10 }, 500n),
    );
    assert.equal(moved?.next_nonce, 2);
    assert.deepEqual(moved?.funds, { reserved: 500n, released: 0n });
    assert.equal(
      await store.atomically((tx) => tx.relayers.advanceFrom(key, lane, { next_nonce: 3, last_created_ms: 11 })),
      undefined,
      'a stale nonce is refused',
    );
    assert.equal((await repos.relayers.get('p'))!.next_nonce, 4, "the relayer's own nonce did not move");
    assert.deepEqual(await repos.transactions.funds('p'), { reserved: 0n, released: 0n });
    assert.deepEqual(await repos.transactions.funds(key), { reserved: 500n, released: 0n });
    assert.equal(await repos.relayers.advance(key, 2, 5, 12), true);
    assert.equal((await repos.relayers.get(key))!.next_nonce, 5);
  });

  test("one nonce per lane: two lanes hold nonce 0, each lane's transactions listed apart, counted per lane", async (t) => {
    const store = await factory(t);
    const { repos } = store;
    await repos.relayers.seed([relayerSeed('p', { address: A })]);
    await repos.relayers.saveLanes('p', lanes());
    await store.atomically(async (tx) => {
      await tx.transactions.insert({ ...txRecord('p', 'a0', 1), nonce: 0 }, 1, 0);
      await tx.transactions.insert({ ...txRecord('p', 'b0', 2), nonce: 0 }, 2, 0, B);
      await tx.transactions.insert({ ...txRecord('p', 'b1', 3), nonce: 1 }, 3, 1, B);
    });
    await assert.rejects(
      store.atomically((tx) => tx.transactions.insert({ ...txRecord('p', 'b1x', 4), nonce: 1 }, 4, 1, B)),
    );
    assert.deepEqual(
      (await repos.transactions.listUnfinished('p', 10)).map((s) => s.record.id),
      ['a0'],
    );
    assert.deepEqual(
      (await repos.transactions.listUnfinished(`p#${B}`, 10)).map((s) => s.record.id),
      ['b0', 'b1'],
    );
    assert.equal((await repos.transactions.getByNonce(`p#${B}`, 1))?.record.id, 'b1');
    assert.equal((await repos.transactions.getByNonce('p', 0))?.record.id, 'a0');
    assert.deepEqual(await repos.relayers.lanePending('p'), { '': 1, [B]: 2 });
    assert.equal(await repos.transactions.count('p', undefined), 3, "the pool's transactions are its relayer's");
  });

  test('lane state is written only when it changes; limits follow PATCH; saving the lanes again drops the others', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('p', { address: A })]);
    await repos.relayers.saveLanes('p', lanes());
    assert.equal(await repos.relayers.setLaneState('p', B, 'low_balance', 'empty'), true);
    assert.equal(await repos.relayers.setLaneState('p', B, 'low_balance', 'empty'), false);
    assert.equal(await repos.relayers.setLaneState('p', B, 'active', null), true);
    await repos.relayers.setMaxPending('p', 3);
    assert.deepEqual(
      (await repos.relayers.lanes('p')).map((l) => l.max_pending),
      [3, 3],
    );
    await repos.relayers.advance(`p#${B}`, 0, 7, 1);
    await repos.relayers.saveLanes('p', lanes(5));
    assert.equal((await repos.relayers.get(`p#${B}`))!.next_nonce, 7, 'a lane saved again keeps its nonce');
    await repos.relayers.saveLanes('p', []);
    assert.deepEqual(await repos.relayers.lanes('p'), []);
  });
}
