// Transaction ids: UUID version 7 text, the creation time in the leading 48 bits, so ids sort by creation time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTransactionId } from '../../src/domain/transactions/transaction-id.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('an id is a version 7 UUID whose first 48 bits are the creation time', () => {
  const at = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
  const id = newTransactionId(at);
  assert.match(id, V7);
  assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
});

test('ids are unique, and sort in the order of their times', () => {
  const start = Date.now();
  const ids = Array.from({ length: 5_000 }, (_, i) => newTransactionId(start + Math.floor(i / 10)));
  assert.equal(new Set(ids).size, ids.length);
  const byTime = ids.map((id, i) => ({ id, t: start + Math.floor(i / 10) }));
  for (let i = 1; i < byTime.length; i++) {
    if (byTime[i]!.t > byTime[i - 1]!.t)
      assert.ok(byTime[i]!.id > byTime[i - 1]!.id, `${byTime[i]!.id} after ${byTime[i - 1]!.id}`);
  }
  assert.ok(ids.every((id) => V7.test(id)));
});
