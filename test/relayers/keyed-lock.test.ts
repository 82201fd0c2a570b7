// The per-relayer lane: work on one key runs one at a time; sends queued while it is busy are handed over together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeyedLock } from '../../src/domain/relayers/keyed-lock.ts';

test('items that arrive while the key is busy are handed to one call, in order; other keys are not held up', async () => {
  const lock = createKeyedLock();
  const calls: number[][] = [];
  let release!: () => void;
  const busy = lock.run('r1', () => new Promise<void>((resolve) => (release = resolve)));
  const write = async (items: number[]) => {
    calls.push(items);
    return items.map((i) => i * 10);
  };
  const queued = [1, 2, 3].map((i) => lock.batch('r1', i, write));
  const other = await lock.batch('r2', 7, write);
  assert.equal(other, 70, 'another key runs at once');
  release();
  await busy;
  assert.deepEqual(await Promise.all(queued), [10, 20, 30]);
  assert.deepEqual(calls, [[7], [1, 2, 3]]);
});

test('an Error answered for one item rejects that item alone; a throw rejects the whole batch; max caps a batch', async () => {
  const lock = createKeyedLock();
  let release!: () => void;
  const busy = lock.run('r', () => new Promise<void>((resolve) => (release = resolve)));
  const picky = async (items: number[]) => items.map((i) => (i === 2 ? new Error('bad item') : i));
  const outcomes = Promise.allSettled([1, 2, 3].map((i) => lock.batch('r', i, picky)));
  const sizes: number[] = [];
  const failing = async (items: number[]): Promise<number[]> => {
    sizes.push(items.length);
    throw new Error('store down');
  };
  const capped = Promise.allSettled([1, 2, 3, 4, 5].map((i) => lock.batch('r', i, failing, 2)));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await busy;
  assert.deepEqual(
    (await outcomes).map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const all = await capped;
  assert.ok(all.every((o) => o.status === 'rejected' && /store down/.test(String(o.reason))));
  assert.deepEqual(sizes, [2, 2, 1]);
});

test('items offered in one turn while the key is idle are handed to one call', async () => {
  const lock = createKeyedLock();
  const calls: number[][] = [];
  const write = async (items: number[]) => {
    calls.push(items);
    return items;
  };
  // Each item joins at the end of an await chain of its own length, as concurrent requests do.
  const arrive = async (i: number) => {
    for (let hop = 0; hop < i * 3; hop++) await null;
    return lock.batch('r', i, write);
  };
  const results = await Promise.all([1, 2, 3].map(arrive));
  assert.deepEqual(results, [1, 2, 3]);
  assert.deepEqual(calls, [[1, 2, 3]]);
});
