// PostgreSQL repository for the notifications table; also answers "does a relayer still point at it".
import type { Kysely } from 'kysely';
import type { NotificationRow, NotificationsRepo } from '../../domain/notifications/ports.ts';
import type { Database } from './schema.ts';

const COLUMNS = ['id', 'type', 'url', 'signing_key', 'seed_hash', 'created_at', 'updated_at'] as const;

export function createNotificationsRepo(q: Kysely<Database>): NotificationsRepo {
  const get = (id: string) =>
    q.selectFrom('notifications').select(COLUMNS).where('id', '=', id).executeTakeFirst() as Promise<
      NotificationRow | undefined
    >;
  return {
    async insertIfAbsent(row) {
      const r = await q
        .insertInto('notifications')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return (r.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    get,
    list: (limit, offset) =>
      q
        .selectFrom('notifications')
        .select(COLUMNS)
        .orderBy('created_at', 'desc')
        .orderBy('pos', 'desc')
        .limit(limit)
        .offset(offset)
        .execute() as Promise<NotificationRow[]>,
    async count() {
      const row = await q
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async update(id, fields, now) {
      const set: Partial<NotificationRow> = {};
      if (fields.url !== undefined) set.url = fields.url;
      if (fields.signing_key !== undefined) set.signing_key = fields.signing_key;
      if (fields.seed_hash !== undefined) set.seed_hash = fields.seed_hash;
      if (Object.keys(set).length === 0) return get(id);
      return (await q
        .updateTable('notifications')
        .set({ ...set, updated_at: now })
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst()) as NotificationRow | undefined;
    },
    async deleteIfUnused(id) {
      // One statement: no relayer can be pointed at the row between the check and the delete.
      const r = await q
        .deleteFrom('notifications')
        .where('id', '=', id)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('relayers').select('id').where('notification_id', '=', id).where('active', '=', true))),
        )
        .executeTakeFirst();
      if (r.numDeletedRows > 0n) return { deleted: true, usedBy: [] };
      const users = await q
        .selectFrom('relayers')
        .select('id')
        .where('notification_id', '=', id)
        .where('active', '=', true)
        .orderBy('id')
        .limit(10)
        .execute();
      return { deleted: false, usedBy: users.map((u) => u.id) };
    },
    all: () => q.selectFrom('notifications').select(COLUMNS).orderBy('pos').execute() as Promise<NotificationRow[]>,
  };
}
