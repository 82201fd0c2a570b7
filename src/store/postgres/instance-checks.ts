// What every instance on one database must agree on, checked at start-up under the start-up lock.
import type { Db } from './db.ts';

const STORAGE_KEY = 'storage_encryption_key_verifier';

/** `same`: the recorded key; `adopted`: the first key of a database used without one; `rotated`: from the previous key. */
export type StorageKeyCheck = 'same' | 'adopted' | 'rotated';

function mismatch(stored: string, verifier: string, previous: string | undefined): Error {
  const used = stored === 'none' ? 'without STORAGE_ENCRYPTION_KEY' : 'with a different STORAGE_ENCRYPTION_KEY';
  const ours =
    verifier === 'none'
      ? 'this instance has none'
      : previous
        ? 'this instance has one that does not match, nor does its STORAGE_ENCRYPTION_KEY_PREVIOUS'
        : 'this instance has one that does not match';
  const rotate =
    stored !== 'none' && verifier !== 'none' && !previous
      ? ' To rotate keys, see docs/security.md (STORAGE_ENCRYPTION_KEY_PREVIOUS).'
      : '';
  return new Error(
    `STORAGE_ENCRYPTION_KEY mismatch: this database is used ${used} (by the other instances or earlier runs), but ${ours}. ` +
      `Every instance sharing DATABASE_URL must use the same STORAGE_ENCRYPTION_KEY; refusing to start.${rotate}`,
  );
}

/**
 * The first instance records its STORAGE_ENCRYPTION_KEY verifier; a later one with another key, or none where one was
 * set, is refused: it would seal secrets the others cannot open, or leave them in plain text. Two changes are taken,
 * and recorded at once (the caller then seals every stored secret under the new key, in one transaction; a start
 * interrupted in between is completed by starting again the same way):
 * - a key where the database was used without one (adopted: the plain secrets get sealed);
 * - the new key where the recorded one is `previous` (STORAGE_ENCRYPTION_KEY_PREVIOUS: a rotation).
 */
export async function checkStorageKey(db: Db, verifier: string, previous?: string): Promise<StorageKeyCheck> {
  await db
    .insertInto('relaybox_meta')
    .values({ key: STORAGE_KEY, value: verifier })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('relaybox_meta')
    .select('value')
    .where('key', '=', STORAGE_KEY)
    .executeTakeFirstOrThrow();
  if (row.value === verifier) return 'same';
  const change =
    verifier === 'none' ? undefined : row.value === 'none' ? 'adopted' : row.value === previous ? 'rotated' : undefined;
  if (!change) throw mismatch(row.value, verifier, previous);
  await db.updateTable('relaybox_meta').set({ value: verifier }).where('key', '=', STORAGE_KEY).execute();
  return change;
}
