// What every instance on one database must agree on, checked at start-up under the start-up lock.
import type { Db } from './connect.ts';

const STORAGE_KEY = 'storage_encryption_key_verifier';

/**
 * The first instance records its STORAGE_ENCRYPTION_KEY verifier; any later one with another key (or none where one
 * was set, or the reverse) is refused: it would seal secrets the others cannot open, or leave them in plain text.
 */
export async function checkStorageKey(db: Db, verifier: string): Promise<void> {
  await db.insertInto('relaybox_meta').values({ key: STORAGE_KEY, value: verifier }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const row = await db.selectFrom('relaybox_meta').select('value').where('key', '=', STORAGE_KEY).executeTakeFirstOrThrow();
  if (row.value === verifier) return;
  const stored = row.value === 'none' ? 'without STORAGE_ENCRYPTION_KEY' : 'with a different STORAGE_ENCRYPTION_KEY';
  const ours = verifier === 'none' ? 'this instance has none' : 'this instance has one that does not match';
  throw new Error(
    `STORAGE_ENCRYPTION_KEY mismatch: this database is used ${stored} (by the other instances or earlier runs), but ${ours}. ` +
      'Every instance sharing DATABASE_URL must use the same STORAGE_ENCRYPTION_KEY; refusing to start.',
  );
}
