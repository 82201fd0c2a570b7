// The retry delay: exponential from the base, capped, jittered between half and full.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from '../../src/domain/backoff.ts';

const policy = { baseMs: 2_000, maxMs: 60_000 };

test('the delay doubles from the base up to the cap', () => {
  const full = (n: number) => backoffDelay(policy, n, () => 1);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(full), [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
});

test('jitter keeps the delay between half and all of the step', () => {
  assert.equal(
    backoffDelay(policy, 1, () => 0),
    1_000,
  );
  assert.equal(
    backoffDelay(policy, 3, () => 0.5),
    6_000,
  );
  for (let i = 0; i < 100; i++) {
    const d = backoffDelay(policy, 4);
    assert.ok(d >= 8_000 && d <= 16_000, String(d));
  }
});
