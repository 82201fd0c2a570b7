// Broadcast against a real anvil: each answer a node gives to eth_sendRawTransaction, classified.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, parseEther } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { createEvmChain } from '../../src/chains/evm/adapter.ts';
import { classifyBroadcast } from '../../src/chains/evm/rpc-errors.ts';
import type { EvmNetworkConfig } from '../../src/config/config.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const chain = createEvmChain(anvil.network() as EvmNetworkConfig);
const KEY = ANVIL_KEYS[0];

async function withAutomineOff<T>(fn: () => Promise<T>): Promise<T> {
  await anvil.setAutomine(false);
  try {
    return await fn();
  } finally {
    await anvil.setAutomine(true);
  }
}

test('a new transaction is submitted under its own hash (keccak256 of the raw bytes)', async () => {
  const raw = await anvil.signed(KEY);
  assert.deepEqual(await chain.broadcast(raw), { status: 'submitted', hash: keccak256(raw), alreadyKnown: false });
  await anvil.waitMined(keccak256(raw));
  assert.ok(await chain.receipt(keccak256(raw)), 'automine mined it');
});

test('sending the same pending transaction again is "already known": submitted', async () => {
  await withAutomineOff(async () => {
    const raw = await anvil.signed(KEY);
    await chain.broadcast(raw);
    assert.deepEqual(await chain.broadcast(raw), { status: 'submitted', hash: keccak256(raw), alreadyKnown: true });
    await anvil.mine();
  });
});

test('another transaction with the same nonce and no higher fee is rejected as replacement underpriced', async () => {
  await withAutomineOff(async () => {
    const nonce = await anvil.pendingNonce(ANVIL_ADDRESSES[0]!);
    const first = await anvil.signed(KEY, { nonce, value: 1n });
    assert.equal((await chain.broadcast(first)).status, 'submitted');
    const sameFee = await anvil.signed(KEY, { nonce, value: 2n });
    const outcome = await chain.broadcast(sameFee);
    assert.equal(outcome.status, 'rejected');
    if (outcome.status !== 'rejected') return;
    assert.equal(outcome.reason, 'replacement_underpriced');
    assert.match(outcome.message, /replacement transaction underpriced/);
    assert.equal(outcome.code, -32003);
    await anvil.mine();
  });
});

test('nonce too low: submitted when it is our own mined transaction, rejected otherwise', async () => {
  const raw = await anvil.signed(KEY);
  await chain.broadcast(raw);
  await anvil.waitMined(keccak256(raw));
  const again = await chain.broadcast(raw);
  assert.deepEqual(again, { status: 'submitted', hash: keccak256(raw), alreadyKnown: true });
  const stale = await anvil.signed(KEY, { nonce: 0, value: 12345n });
  const outcome = await chain.broadcast(stale);
  assert.equal(outcome.status, 'rejected');
  if (outcome.status === 'rejected') assert.equal(outcome.reason, 'nonce_too_low');
});

test('insufficient funds, fee below the base fee and intrinsic gas too low are told apart', async () => {
  const poor = generatePrivateKey();
  const cases: Array<[string, Promise<`0x${string}`>, string]> = [
    ['insufficient_funds', anvil.signed(poor, { nonce: 0 }), 'empty account'],
    ['insufficient_funds', anvil.signed(KEY, { value: parseEther('1000000') }), 'value above the balance'],
    ['underpriced', anvil.signed(KEY, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }), 'max fee below the base fee'],
    ['underpriced', anvil.signed(KEY, { gasPrice: 1n }), 'legacy gas price below the base fee'],
    ['intrinsic_gas_too_low', anvil.signed(KEY, { gas: 20_000n }), 'gas limit under 21000'],
  ];
  for (const [reason, raw, what] of cases) {
    const outcome = await chain.broadcast(await raw);
    assert.equal(outcome.status, 'rejected', what);
    if (outcome.status === 'rejected') assert.equal(outcome.reason, reason, `${what}: ${outcome.message}`);
  }
});

test('a future nonce is accepted by anvil (queued): the lifecycle sees the gap through nonces()', async () => {
  await withAutomineOff(async () => {
    const pending = await anvil.pendingNonce(ANVIL_ADDRESSES[0]!);
    const outcome = await chain.broadcast(await anvil.signed(KEY, { nonce: pending + 3 }));
    assert.equal(outcome.status, 'submitted');
    assert.equal(
      (await chain.nonces(ANVIL_ADDRESSES[0]!)).pending,
      pending,
      'a queued transaction does not move the pending nonce',
    );
    if (outcome.status === 'submitted') await anvil.dropTransaction(outcome.hash);
  });
});

test("other nodes' texts map to the same classes; an unknown text is 'other'", () => {
  const cases: Array<[string, string]> = [
    ['already known', 'already_known'],
    ['ALREADY_EXISTS: already known', 'already_known'],
    ['known transaction: 0xabc', 'already_known'],
    ['replacement transaction underpriced', 'replacement_underpriced'],
    ['nonce too low: next nonce 5, tx nonce 3', 'nonce_too_low'],
    ['Nonce too high. Expected nonce to be 2 but got 7', 'nonce_too_high'],
    ['insufficient funds for gas * price + value: balance 0', 'insufficient_funds'],
    ['intrinsic gas too low: have 20000, want 21000', 'intrinsic_gas_too_low'],
    ['transaction underpriced: tip needed 1, tip permitted 0', 'underpriced'],
    ['max fee per gas less than block base fee: address 0x, maxFeePerGas: 1, baseFee: 7', 'underpriced'],
    ['FeeTooLow', 'underpriced'],
    ['intrinsic gas too high -- tx.gas_limit > env.block.gas_limit', 'other'],
    ['invalid sender', 'other'],
  ];
  for (const [text, kind] of cases) assert.equal(classifyBroadcast(text), kind, text);
});
