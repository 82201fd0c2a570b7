// Start-up rules of a shared database: one API key for all (no generated key), one STORAGE_ENCRYPTION_KEY for all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterSkip, createCluster } from './cluster.ts';

const skip = await clusterSkip();

test('an instance refuses to start without API_KEY or with another STORAGE_ENCRYPTION_KEY than the database was used with', {
  skip,
}, async (t) => {
  const cluster = await createCluster(t);
  const first = cluster.start('first', { STORAGE_ENCRYPTION_KEY: 'first-storage-key-0123456789abcdef0123' });
  await first.listening;

  const otherKey = cluster.start('other-key', { STORAGE_ENCRYPTION_KEY: 'other-storage-key-0123456789abcdef0123' });
  assert.equal(await otherKey.exited, 1);
  assert.match(
    otherKey.output(),
    /STORAGE_ENCRYPTION_KEY mismatch: this database is used with a different STORAGE_ENCRYPTION_KEY/,
  );
  assert.doesNotMatch(otherKey.output(), /other-storage-key/, 'the key itself is never printed');

  const noKey = cluster.start('no-key', {});
  assert.equal(await noKey.exited, 1);
  assert.match(noKey.output(), /this database is used with a different STORAGE_ENCRYPTION_KEY|this instance has none/);

  const noApiKey = cluster.start('no-api-key', {
    API_KEY: '',
    STORAGE_ENCRYPTION_KEY: 'first-storage-key-0123456789abcdef0123',
  });
  assert.equal(await noApiKey.exited, 1);
  assert.match(noApiKey.output(), /API_KEY is required when DATABASE_URL is set/);
  assert.doesNotMatch(noApiKey.output(), /generated one for this run/);

  const same = cluster.start('same-key', { STORAGE_ENCRYPTION_KEY: 'first-storage-key-0123456789abcdef0123' });
  await same.listening;
  for (const i of [first, same]) i.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all([first.exited, same.exited]), [0, 0]);
});
