// PostgreSQL repository of the API keys (same behaviour as src/store/sqlite/api-keys-repo.ts).
import type { Kysely } from 'kysely';
import type { ApiKeyRow, ApiKeysRepo } from '../../domain/api-keys/ports.ts';
import type { Database } from './schema.ts';

type KeyRow = Database['api_keys'];
const toKey = (row: KeyRow): ApiKeyRow => ({
  ...row,
  permissions: JSON.parse(row.permissions) as string[],
  allowed_origins: JSON.parse(row.allowed_origins) as string[],
  rate_limit: row.rate_limit === null ? null : (JSON.parse(row.rate_limit) as ApiKeyRow['rate_limit']),
});

export function createApiKeysRepo(q: Kysely<Database>): ApiKeysRepo {
  const one = async (column: 'id' | 'key_hash', value: string) => {
    const row = await q.selectFrom('api_keys').selectAll().where(column, '=', value).executeTakeFirst();
    return row && toKey(row);
  };
  return {
    async insert(row) {
      const values = {
        ...row,
        permissions: JSON.stringify(row.permissions),
        allowed_origins: JSON.stringify(row.allowed_origins),
        rate_limit: row.rate_limit && JSON.stringify(row.rate_limit),
      };
      const r = await q
        .insertInto('api_keys')
        .values(values)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    get: (id) => one('id', id),
    findByHash: (hash) => one('key_hash', hash),
    list: async (limit, offset) =>
      (
        await q
          .selectFrom('api_keys')
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute()
      ).map(toKey),
    count: async () =>
      Number(
        (
          await q
            .selectFrom('api_keys')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    async remove(id) {
      const r = await q.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
  };
}
