// Tracking against a real anvil: receipts, revert reasons, dropped transactions and reorgs, as the lifecycle will see them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, type Hex } from 'viem';
import { createEvmChain } from '../../src/chains/evm/adapter.ts';
import type { EvmNetworkConfig } from '../../src/config/config.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, BARE_REVERT, revertData, revertingCode, startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const chain = createEvmChain(anvil.network() as EvmNetworkConfig);
const KEY = ANVIL_KEYS[1];

/** Broadcasts through the adapter; waits for the block unless automine is off. */
async function broadcast(fields: Parameters<typeof anvil.signed>[1] = {}, wait = true): Promise<Hex> {
  const outcome = await chain.broadcast(await anvil.signed(KEY, fields));
  assert.equal(outcome.status, 'submitted');
  const { hash } = outcome as { hash: Hex };
  if (wait) await anvil.waitMined(hash);
  return hash;
}

test('a mined transfer has a receipt: success, block, gas used and the effective gas price', async () => {
  const hash = await broadcast({ maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n });
  const receipt = await chain.receipt(hash);
  assert.ok(receipt);
  const block = await anvil.rpc<{ hash: Hex; number: Hex; baseFeePerGas: Hex }>('eth_getBlockByNumber', [
    `0x${receipt.blockNumber.toString(16)}`,
    false,
  ]);
  assert.equal(receipt.from?.toLowerCase(), ANVIL_ADDRESSES[1]!.toLowerCase(), 'the sender, as the node says');
  assert.deepEqual(receipt, {
    hash,
    from: receipt.from,
    status: 'success',
    blockNumber: BigInt(block.number),
    blockHash: block.hash,
    gasUsed: 21_000n,
    effectiveGasPrice: BigInt(block.baseFeePerGas) + 2_000_000_000n,
  });
  assert.equal(await chain.blockNumber(), receipt.blockNumber);
  assert.equal(await chain.blockHash(receipt.blockNumber), receipt.blockHash);
  assert.equal(await chain.blockHash(receipt.blockNumber + 1000n), null);
  const tx = await chain.transaction(hash);
  // Its content as mined: what a record describes when an older version of it is the one mined.
  const content = {
    to: ANVIL_ADDRESSES[2]!,
    input: '0x',
    value: 1n,
    gas: 21_000n,
    gasPrice: null,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 2_000_000_000n,
  };
  assert.deepEqual(tx, {
    hash,
    from: ANVIL_ADDRESSES[1]!.toLowerCase(),
    nonce: tx!.nonce,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    content,
  });
  const legacy = await chain.transaction(await broadcast({ gasPrice: 30_000_000_000n, value: 5n }));
  assert.deepEqual(
    [legacy?.content?.gasPrice, legacy?.content?.maxFeePerGas, legacy?.content?.value],
    [30_000_000_000n, null, 5n],
  );
  assert.equal(await chain.revertReason(hash), null, 'a successful transaction has no revert reason');
  assert.equal(await chain.receipt(keccak256('0x01')), null);
});

test('a reverted transaction gets a receipt with status reverted and its decoded reason', async () => {
  const cases: Array<[Hex, string, string]> = [
    [revertingCode(revertData.error('insufficient allowance')), 'error', 'insufficient allowance'],
    [revertingCode(revertData.panic(0x11)), 'panic', 'panic 0x11: arithmetic underflow or overflow'],
    [revertingCode(revertData.custom('0xdeadbeef', 7n)), 'custom', 'custom error 0xdeadbeef'],
    [BARE_REVERT, 'empty', 'execution reverted'],
  ];
  for (const [i, [code, kind, message]] of cases.entries()) {
    const target = `0x00000000000000000000000000000000000000a${i}` as Hex;
    await anvil.setCode(target, code);
    const hash = await broadcast({ to: target, data: '0x12345678', value: 0n });
    const receipt = await chain.receipt(hash);
    assert.equal(receipt?.status, 'reverted');
    const reason = await chain.revertReason(hash);
    assert.equal(reason?.kind, kind);
    if (kind === 'empty') assert.match(reason!.message, /revert/i);
    else assert.equal(reason?.message, message);
  }
});

test('a pending transaction dropped from the pool is unknown to the node afterwards', async () => {
  await anvil.setAutomine(false);
  try {
    const hash = await broadcast({}, false);
    const pending = await chain.transaction(hash);
    assert.equal(pending?.blockNumber, null, 'pending: known, not in a block');
    await anvil.dropTransaction(hash);
    assert.equal(await chain.transaction(hash), null);
    assert.equal(await chain.receipt(hash), null);
  } finally {
    await anvil.setAutomine(true);
  }
});

test('a reorg that removes the block: the receipt disappears and the height holds another block', async () => {
  const hash = await broadcast();
  const receipt = (await chain.receipt(hash))!;
  await anvil.reorg(1);
  assert.equal(await chain.receipt(hash), null, 'the receipt is gone with its block');
  const canonical = await chain.blockHash(receipt.blockNumber);
  assert.ok(canonical);
  assert.notEqual(
    canonical,
    receipt.blockHash,
    'a receipt whose block hash differs from the canonical one was reorged out',
  );
});
