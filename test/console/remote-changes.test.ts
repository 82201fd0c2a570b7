// src/domain/live/remote-changes.ts with a real live feed: what another instance committed is read back once per
// window, only while someone listens, never shown twice or older than what was shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLiveFeed, type LiveEvent } from '../../src/domain/live/feed.ts';
import { createRemoteChanges, REMOTE_WINDOW_MS } from '../../src/domain/live/remote-changes.ts';
import type { StoredTransaction } from '../../src/domain/relayers/ports.ts';
import type { TransactionRecord } from '../../src/domain/types.ts';

const settle = () => new Promise((r) => setTimeout(r, REMOTE_WINDOW_MS * 3));

/** A table of rows as the store holds them, and the reads made of it (each read: the ids asked for). */
function table() {
  const rows = new Map<string, StoredTransaction>();
  const reads: string[][] = [];
  let failing: Error | undefined;
  return {
    reads,
    put(id: string, version: number, status: string) {
      rows.set(id, { record: { id, relayer_id: 'r1', status } as unknown as TransactionRecord, version });
    },
    fail(err: Error | undefined) {
      failing = err;
    },
    async findMany(ids: readonly string[]) {
      reads.push([...ids]);
      if (failing) throw failing;
      return ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : []));
    },
  };
}

test('nothing is read while no one listens', async () => {
  const feed = createLiveFeed();
  const t = table();
  const notice = createRemoteChanges({ feed, findMany: t.findMany, onError: () => assert.fail('no read, no error') });
  t.put('a', 1, 'pending');
  notice('a', 1);
  await settle();
  assert.deepEqual(t.reads, []);
});

test('a burst of notices is one read; each row is shown once, at the version read', async () => {
  const feed = createLiveFeed();
  const seen: LiveEvent[] = [];
  feed.subscribe((e) => seen.push(e));
  const t = table();
  const notice = createRemoteChanges({ feed, findMany: t.findMany, onError: () => undefined });
  t.put('a', 3, 'submitted');
  t.put('b', 1, 'pending');
  notice('a', 2);
  notice('a', 3);
  notice('b', 1);
  await settle();
  assert.deepEqual(t.reads, [['a', 'b']]);
  assert.deepEqual(
    seen.map((e) => [e.transaction.id, e.transaction.status]),
    [
      ['a', 'submitted'],
      ['b', 'pending'],
    ],
  );
  // A late notice for a version already shown is not read again; a newer one is.
  notice('a', 3);
  await settle();
  assert.equal(t.reads.length, 1);
  t.put('a', 4, 'mined');
  notice('a', 4);
  await settle();
  assert.deepEqual(
    seen.map((e) => e.transaction.status),
    ['submitted', 'pending', 'mined'],
  );
  assert.equal(seen[2]!.relayer_id, 'r1');
});

test('a failed read is reported once per outage, and later notices are read again', async () => {
  const feed = createLiveFeed();
  const seen: LiveEvent[] = [];
  feed.subscribe((e) => seen.push(e));
  const t = table();
  const errors: unknown[] = [];
  const notice = createRemoteChanges({ feed, findMany: t.findMany, onError: (err) => errors.push(err) });
  t.fail(new Error('connection lost'));
  t.put('a', 1, 'pending');
  notice('a', 1);
  await settle();
  t.put('a', 2, 'sent');
  notice('a', 2);
  await settle();
  assert.equal(errors.length, 1);
  assert.equal(seen.length, 0);
  t.fail(undefined);
  t.put('a', 3, 'submitted');
  notice('a', 3);
  await settle();
  assert.deepEqual(
    seen.map((e) => e.transaction.status),
    ['submitted'],
  );
  t.fail(new Error('lost again'));
  t.put('a', 4, 'mined');
  notice('a', 4);
  await settle();
  assert.equal(errors.length, 2);
});
