// The test support's chain moves do what lifecycle tests will rely on (a real anvil).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil({ chainId: 1337 });
after(() => anvil.stop());

test('sendFrom sends from another account; with automine off it waits in the pool until mine()', async () => {
  await anvil.setAutomine(false);
  try {
    const hash = await anvil.sendFrom(ANVIL_KEYS[2], { to: ANVIL_ADDRESSES[0], value: 5n });
    const pool = await anvil.txpool();
    const mine = Object.entries(pool.pending).find(
      ([from]) => from.toLowerCase() === ANVIL_ADDRESSES[2]!.toLowerCase(),
    )?.[1];
    assert.ok(mine && Object.values(mine).some((tx) => tx.hash === hash));
    const before = await anvil.blockNumber();
    await anvil.mine(2);
    assert.equal(await anvil.blockNumber(), before + 2n);
    assert.ok(await anvil.rpc('eth_getTransactionReceipt', [hash]));
  } finally {
    await anvil.setAutomine(true);
  }
});

test('snapshot and revert restore the chain; the next base fee can be set', async () => {
  const id = await anvil.snapshot();
  const height = await anvil.blockNumber();
  await anvil.waitMined(await anvil.sendFrom(ANVIL_KEYS[1]));
  assert.equal(await anvil.blockNumber(), height + 1n);
  assert.equal(await anvil.revert(id), true);
  assert.equal(await anvil.blockNumber(), height);
  await anvil.setNextBaseFee(123_000_000_000n);
  await anvil.mine();
  const block = await anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
  assert.equal(BigInt(block.baseFeePerGas), 123_000_000_000n);
});

test('the network it describes points at it with its chain id', () => {
  const network = anvil.network('local');
  assert.deepEqual(
    [network.network, network.chain_id, network.rpc_urls],
    ['local', 1337, [{ url: anvil.url, weight: 100 }]],
  );
});
