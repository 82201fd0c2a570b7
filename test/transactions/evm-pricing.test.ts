// The fee rules of a replacement and a resubmission: both fields up by max(old × 1.1, old + 1), never below the network's price for the speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyFeeCap, minimumBump, raisesPrice } from '../../src/domain/transactions/evm/pricing.ts';
import { bumpPricing } from '../../src/domain/transactions/evm/versions.ts';
import type { FeeSuggestions } from '../../src/domain/chains/ports.ts';

test('the minimum bump is old × 1.1 rounded up, or old + 1 for small prices', () => {
  assert.equal(minimumBump(2n), 3n);
  assert.equal(minimumBump(10n), 11n);
  assert.equal(minimumBump(100n), 110n);
  assert.equal(minimumBump(101n), 112n);
  assert.equal(minimumBump(100000000000000000000000000001n), 110000000000000000000000000002n);
});

const speeds = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) => ({ maxFeePerGas, maxPriorityFeePerGas });
const eip: FeeSuggestions = {
  type: 'eip1559',
  baseFeePerGas: 1_000n,
  speeds: {
    safeLow: speeds(2_000n, 100n),
    average: speeds(2_500n, 200n),
    fast: speeds(3_000n, 300n),
    fastest: speeds(5_000n, 500n),
  },
};

test('a resubmission raises both EIP-1559 fields by at least 10%, to the network price when that is higher', () => {
  assert.deepEqual(
    bumpPricing({ type: 'eip1559', maxFeePerGas: 10_000n, maxPriorityFeePerGas: 1_000n }, eip, 'fast', null),
    { type: 'eip1559', maxFeePerGas: 11_000n, maxPriorityFeePerGas: 1_100n },
  );
  assert.deepEqual(
    bumpPricing({ type: 'eip1559', maxFeePerGas: 1_000n, maxPriorityFeePerGas: 10n }, eip, 'fast', null),
    { type: 'eip1559', maxFeePerGas: 3_000n, maxPriorityFeePerGas: 300n },
  );
  assert.deepEqual(
    bumpPricing({ type: 'eip1559', maxFeePerGas: 1_000n, maxPriorityFeePerGas: 10n }, null, 'fast', null),
    { type: 'eip1559', maxFeePerGas: 1_100n, maxPriorityFeePerGas: 11n },
  );
  // The cap is never below the tip.
  assert.deepEqual(bumpPricing({ type: 'eip1559', maxFeePerGas: 2n, maxPriorityFeePerGas: 2n }, null, 'fast', null), {
    type: 'eip1559',
    maxFeePerGas: 3n,
    maxPriorityFeePerGas: 3n,
  });
});

test('a legacy resubmission raises the gas price by at least 10%', () => {
  const legacy: FeeSuggestions = {
    type: 'legacy',
    speeds: {
      safeLow: { gasPrice: 5n },
      average: { gasPrice: 6n },
      fast: { gasPrice: 500n },
      fastest: { gasPrice: 900n },
    },
  };
  assert.deepEqual(bumpPricing({ type: 'legacy', gasPrice: 1_000n }, legacy, 'fast', null), {
    type: 'legacy',
    gasPrice: 1_100n,
  });
  assert.deepEqual(bumpPricing({ type: 'legacy', gasPrice: 100n }, legacy, 'fastest', null), {
    type: 'legacy',
    gasPrice: 900n,
  });
});

test('the fee cap: a gas price or a max fee above it is lowered to it, the tip never above the max fee', () => {
  assert.deepEqual(applyFeeCap({ type: 'legacy', gasPrice: 101n }, 100n), { type: 'legacy', gasPrice: 100n });
  assert.deepEqual(applyFeeCap({ type: 'legacy', gasPrice: 99n }, 100n), { type: 'legacy', gasPrice: 99n });
  assert.deepEqual(applyFeeCap({ type: 'eip1559', maxFeePerGas: 500n, maxPriorityFeePerGas: 40n }, 100n), {
    type: 'eip1559',
    maxFeePerGas: 100n,
    maxPriorityFeePerGas: 40n,
  });
  assert.deepEqual(applyFeeCap({ type: 'eip1559', maxFeePerGas: 500n, maxPriorityFeePerGas: 300n }, 100n), {
    type: 'eip1559',
    maxFeePerGas: 100n,
    maxPriorityFeePerGas: 100n,
  });
  assert.deepEqual(applyFeeCap({ type: 'eip1559', maxFeePerGas: 500n, maxPriorityFeePerGas: 300n }, null), {
    type: 'eip1559',
    maxFeePerGas: 500n,
    maxPriorityFeePerGas: 300n,
  });
});

test('a bump that would pass the cap is clamped to it; one already at the cap raises nothing', () => {
  const old = { type: 'eip1559', maxFeePerGas: 2_800n, maxPriorityFeePerGas: 100n } as const;
  const clamped = bumpPricing(old, eip, 'fastest', 2_900n);
  assert.deepEqual(clamped, { type: 'eip1559', maxFeePerGas: 2_900n, maxPriorityFeePerGas: 500n });
  assert.equal(raisesPrice(old, clamped), true);
  const atCap = bumpPricing(clamped, eip, 'fastest', 2_900n);
  assert.deepEqual(atCap, { type: 'eip1559', maxFeePerGas: 2_900n, maxPriorityFeePerGas: 550n });
  assert.equal(raisesPrice(clamped, atCap), false, 'at the cap a bump is no higher price: nothing new is signed');
  assert.deepEqual(bumpPricing({ type: 'legacy', gasPrice: 1_000n }, null, 'fast', 1_000n), {
    type: 'legacy',
    gasPrice: 1_000n,
  });
});
