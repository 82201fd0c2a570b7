// Repository for the notifications table; also answers "does a relayer still point at it".
import type { Db } from './db.ts';
import type { NotificationRow, NotificationsRepo } from '../../domain/notifications/ports.ts';
import type { SyncOf } from './sync-ops.ts';

const COLUMNS = 'id, type, url, signing_key, seed_hash, created_at, updated_at';

/** Builds the repository; every statement is prepared here, once. */
export function createNotificationsRepo(db: Db): SyncOf<NotificationsRepo> {
  // ON CONFLICT DO NOTHING makes check-and-insert one statement: a concurrent duplicate sees changes = 0.
  const insert = db.prepare(
    `INSERT INTO notifications (${COLUMNS}) VALUES (@id, @type, @url, @signing_key, @seed_hash, @created_at, @updated_at) ON CONFLICT (id) DO NOTHING`,
  );
  const getOne = db.prepare(`SELECT ${COLUMNS} FROM notifications WHERE id = ?`);
  const listPage = db.prepare(
    `SELECT ${COLUMNS} FROM notifications ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
  );
  const listAll = db.prepare(`SELECT ${COLUMNS} FROM notifications ORDER BY rowid`);
  const countAll = db.prepare('SELECT COUNT(*) FROM notifications').pluck();
  const setUrl = db.prepare('UPDATE notifications SET url = ?, updated_at = ? WHERE id = ?');
  const setKey = db.prepare('UPDATE notifications SET signing_key = ?, updated_at = ? WHERE id = ?');
  const setSeed = db.prepare('UPDATE notifications SET seed_hash = ?, updated_at = ? WHERE id = ?');
  // Relayers that left the config (active = 0) or were deleted are hidden from the API and cannot be re-pointed, so they do not block.
  const users = db
    .prepare(
      'SELECT id FROM relayers WHERE notification_id = ? AND active = 1 AND deleted_at IS NULL ORDER BY id LIMIT 10',
    )
    .pluck();
  const remove = db.prepare('DELETE FROM notifications WHERE id = ?');

  const update = db.transaction(
    (id: string, fields: { url?: string; signing_key?: string | null; seed_hash?: string | null }, now: string) => {
      if (!getOne.get(id)) return undefined;
      if (fields.url !== undefined) setUrl.run(fields.url, now, id);
      if (fields.signing_key !== undefined) setKey.run(fields.signing_key, now, id);
      if (fields.seed_hash !== undefined) setSeed.run(fields.seed_hash, now, id);
      return getOne.get(id) as NotificationRow;
    },
  );

  // One transaction, so no relayer can be pointed at the row between the check and the delete.
  const deleteIfUnused = db.transaction((id: string) => {
    const usedBy = users.all(id) as string[];
    if (usedBy.length > 0) return { deleted: false, usedBy };
    return { deleted: remove.run(id).changes > 0, usedBy };
  });

  return {
    insertIfAbsent: (row) => insert.run(row).changes > 0,
    get: (id) => getOne.get(id) as NotificationRow | undefined,
    list: (limit, offset) => listPage.all(limit, offset) as NotificationRow[],
    count: () => countAll.get() as number,
    update: (id, fields, now) => update(id, fields, now),
    deleteIfUnused: (id) => deleteIfUnused(id),
    all: () => listAll.all() as NotificationRow[],
  };
}
