// The EVM adapter's reads against a real anvil: chain id, balance, nonces, fees per speed, gas estimation.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createEvmChain } from '../../src/chains/evm/adapter.ts';
import type { AppError } from '../../src/errors.ts';
import { SPEEDS } from '../../src/domain/chains/ports.ts';
import { HISTORY_BLOCKS } from '../../src/chains/evm/fees.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, revertData, revertingCode, startAnvil } from '../support/anvil.ts';
import type { EvmNetworkConfig } from '../../src/config/config.ts';

const anvil = await startAnvil({ chainId: 31337 });
after(() => anvil.stop());

const chainFor = (overrides: Partial<EvmNetworkConfig> = {}) =>
  createEvmChain({ ...anvil.network('anvil'), ...overrides } as EvmNetworkConfig);
const [A0, A1] = ANVIL_ADDRESSES as [`0x${string}`, `0x${string}`];

test('the chain id check passes for the node it names and refuses another chain id, naming both', async () => {
  await chainFor().checkChainId();
  const wrong = chainFor({ chain_id: 1 });
  await assert.rejects(wrong.checkChainId(), (err: AppError) => {
    assert.equal(err.code, 'CHAIN_UNAVAILABLE');
    assert.match(err.reason, /network 'anvil' is configured with chain_id 1, but its RPC answers chain id 31337/);
    return true;
  });
  const broadcast = await wrong.broadcast(await anvil.signed(ANVIL_KEYS[1]));
  assert.equal(broadcast.status, 'unavailable', 'nothing is sent to a chain other than the configured one');
});

test('balance, and nonces latest vs pending while a transaction waits in the pool', async () => {
  const chain = chainFor();
  assert.equal(await chain.balance(A1), await anvil.rpc<string>('eth_getBalance', [A1, 'latest']).then(BigInt));
  await anvil.setAutomine(false);
  try {
    const before = await chain.nonces(A1);
    assert.equal(before.latest, before.pending);
    await anvil.sendFrom(ANVIL_KEYS[1]);
    assert.deepEqual(await chain.nonces(A1), { latest: before.latest, pending: before.pending + 1 });
    await anvil.mine();
    assert.deepEqual(await chain.nonces(A1), { latest: before.latest + 1, pending: before.pending + 1 });
  } finally {
    await anvil.setAutomine(true);
  }
});

test('EIP-1559 fees per speed follow the reward percentiles of recent blocks over the next base fee', async () => {
  const chain = chainFor();
  // Blocks whose transactions tip 5, 6 and 7 gwei (far above the node's own 1 gwei suggestion).
  await anvil.setAutomine(false);
  try {
    for (let block = 0; block < HISTORY_BLOCKS; block++) {
      for (const [i, key] of ANVIL_KEYS.entries()) {
        await anvil.sendFrom(key, {
          maxPriorityFeePerGas: BigInt(i + 5) * 1_000_000_000n,
          maxFeePerGas: 50_000_000_000n,
        });
      }
      await anvil.mine();
    }
  } finally {
    await anvil.setAutomine(true);
  }
  const fees = await chain.fees();
  assert.equal(fees.type, 'eip1559');
  if (fees.type !== 'eip1559') return;
  const next = BigInt(
    (await anvil.rpc<{ baseFeePerGas: string[] }>('eth_feeHistory', ['0x1', 'latest', []])).baseFeePerGas.at(-1)!,
  );
  assert.equal(fees.baseFeePerGas, next);
  const tips = SPEEDS.map((s) => fees.speeds[s].maxPriorityFeePerGas);
  // Three equal-gas transactions per block: the 30th percentile is the 5 gwei one, the 50th 6, the 85th and 99th 7.
  assert.deepEqual(tips, [5_000_000_000n, 6_000_000_000n, 7_000_000_000n, 7_000_000_000n]);
  for (const s of SPEEDS) assert.equal(fees.speeds[s].maxFeePerGas, 2n * next + fees.speeds[s].maxPriorityFeePerGas);
});

test('legacy fees scale eth_gasPrice per speed (100/125/150/200%)', async () => {
  const fees = await chainFor({ network: 'legacy', features: [] }).fees();
  assert.equal(fees.type, 'legacy');
  if (fees.type !== 'legacy') return;
  const price = BigInt(await anvil.rpc<string>('eth_gasPrice'));
  assert.deepEqual(
    SPEEDS.map((s) => fees.speeds[s].gasPrice),
    [price, (price * 125n) / 100n, (price * 150n) / 100n, price * 2n],
  );
});

test('fee suggestions are reused within the cache window (one answer for concurrent callers)', async () => {
  const chain = chainFor({ average_blocktime_ms: 60_000 });
  const [a, b] = await Promise.all([chain.fees(), chain.fees()]);
  assert.equal(a, b);
  assert.equal(await chain.fees(), a);
});

test('gas estimation answers the gas of a call, or why it reverts', async () => {
  const chain = chainFor();
  assert.deepEqual(await chain.estimateGas({ from: A0, to: A1, data: null, value: 1n }), { ok: true, gas: 21_000n });
  const target = '0x00000000000000000000000000000000000000e1';
  await anvil.setCode(target, revertingCode(revertData.error('not allowed')));
  const refused = await chain.estimateGas({ from: A0, to: target, data: '0x12345678', value: 0n });
  assert.equal(refused.ok, false);
  if (refused.ok) return;
  assert.equal(refused.revert?.kind, 'error');
  assert.equal(refused.revert?.message, 'not allowed');
});
