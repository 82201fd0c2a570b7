// Contract: the notifications repository (insert-if-absent, listing order, updates, guarded delete).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import { notificationRow, relayerSeed } from './fixtures.ts';

export function notificationsContract(factory: StoreFactory): void {
  test('insertIfAbsent inserts once; a duplicate id is refused and changes nothing', async (t) => {
    const { repos } = await factory(t);
    const row = notificationRow('hook');
    assert.equal(await repos.notifications.insertIfAbsent(row), true);
    assert.equal(await repos.notifications.insertIfAbsent({ ...row, url: 'https://example.com/other' }), false);
    assert.deepEqual(await repos.notifications.get('hook'), row);
    assert.equal(await repos.notifications.get('nope'), undefined);
  });

  test('list is newest first with limit and offset; all() is oldest first; count counts them', async (t) => {
    const { repos } = await factory(t);
    for (const [id, at] of [
      ['a', '2025-01-01T00:00:01.000Z'],
      ['b', '2025-01-01T00:00:03.000Z'],
      ['c', '2025-01-01T00:00:02.000Z'],
    ] as const) {
      await repos.notifications.insertIfAbsent(notificationRow(id, at));
    }
    assert.deepEqual(
      (await repos.notifications.list(10, 0)).map((n) => n.id),
      ['b', 'c', 'a'],
    );
    assert.deepEqual(
      (await repos.notifications.list(1, 1)).map((n) => n.id),
      ['c'],
    );
    assert.deepEqual(
      (await repos.notifications.all()).map((n) => n.id),
      ['a', 'b', 'c'],
    );
    assert.equal(await repos.notifications.count(), 3);
  });

  test('update changes only the given fields and answers undefined for an unknown id', async (t) => {
    const { repos } = await factory(t);
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    const later = '2030-01-01T00:00:00.000Z';
    const updated = await repos.notifications.update('hook', { signing_key: 'k' }, later);
    assert.equal(updated!.signing_key, 'k');
    assert.equal(updated!.url, 'https://example.com/hook');
    assert.equal(updated!.updated_at, later);
    const again = await repos.notifications.update(
      'hook',
      { url: 'https://example.com/new', signing_key: null, seed_hash: 'h' },
      later,
    );
    assert.deepEqual([again!.url, again!.signing_key, again!.seed_hash], ['https://example.com/new', null, 'h']);
    assert.equal(await repos.notifications.update('nope', { url: 'https://x' }, later), undefined);
  });

  test('deleteIfUnused refuses while an active relayer points at it, naming it', async (t) => {
    const { repos } = await factory(t);
    await repos.notifications.insertIfAbsent(notificationRow('hook'));
    await repos.relayers.seed([relayerSeed('r1', { notification_id: 'hook' }), relayerSeed('r2')]);
    assert.deepEqual(await repos.notifications.deleteIfUnused('hook'), { deleted: false, usedBy: ['r1'] });
    // r1 leaves the config: hidden, so it no longer blocks.
    await repos.relayers.seed([relayerSeed('r2')]);
    assert.deepEqual(await repos.notifications.deleteIfUnused('hook'), { deleted: true, usedBy: [] });
    assert.deepEqual(await repos.notifications.deleteIfUnused('hook'), { deleted: false, usedBy: [] });
    assert.equal(await repos.notifications.get('hook'), undefined);
  });
}
