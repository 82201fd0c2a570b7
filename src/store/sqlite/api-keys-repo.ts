// SQLite repository for API keys: the hash of each secret, never the secret.
import type { Db } from './db.ts';
import type { ApiKeyRow, ApiKeysRepo } from '../../domain/api-keys/ports.ts';
import type { SyncOf } from './sync-ops.ts';

const COLUMNS = 'id, name, key_hash, permissions, allowed_origins, created_at, rate_limit';

type Row = Omit<ApiKeyRow, 'permissions' | 'allowed_origins' | 'rate_limit'> & {
  permissions: string;
  allowed_origins: string;
  rate_limit: string | null;
};

const toKey = (row: Row): ApiKeyRow => ({
  ...row,
  permissions: JSON.parse(row.permissions) as string[],
  allowed_origins: JSON.parse(row.allowed_origins) as string[],
  rate_limit: row.rate_limit === null ? null : (JSON.parse(row.rate_limit) as ApiKeyRow['rate_limit']),
});

export function createApiKeysRepo(db: Db): SyncOf<ApiKeysRepo> {
  const insert = db.prepare(
    `INSERT INTO api_keys (${COLUMNS}) VALUES (@id, @name, @key_hash, @permissions, @allowed_origins, @created_at, @rate_limit) ON CONFLICT DO NOTHING`,
  );
  const getOne = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
  const byHash = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`);
  const listPage = db.prepare<[number, number], Row>(
    `SELECT ${COLUMNS} FROM api_keys ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const countAll = db.prepare<[], number>('SELECT COUNT(*) FROM api_keys').pluck();
  const remove = db.prepare('DELETE FROM api_keys WHERE id = ?');
  return {
    insert: (row) =>
      insert.run({
        ...row,
        permissions: JSON.stringify(row.permissions),
        allowed_origins: JSON.stringify(row.allowed_origins),
        rate_limit: row.rate_limit && JSON.stringify(row.rate_limit),
      }).changes === 1,
    get(id) {
      const row = getOne.get(id);
      return row && toKey(row);
    },
    findByHash(hash) {
      const row = byHash.get(hash);
      return row && toKey(row);
    },
    list: (limit, offset) => listPage.all(limit, offset).map(toKey),
    count: () => countAll.get() ?? 0,
    remove: (id) => remove.run(id).changes === 1,
  };
}
