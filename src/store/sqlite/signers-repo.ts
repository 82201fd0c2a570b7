// SQLite repository for signers (config ones seeded without their keys, API ones with their sealed key).
import type { Db } from './db.ts';
import type { SignerRow, SignersRepo } from '../../domain/signers/ports.ts';
import type { SyncOf } from './sync-ops.ts';

const COLUMNS = 'id, type, config, secret, source, created_at, updated_at';

type Row = Omit<SignerRow, 'config'> & { config: string };

const toSigner = (row: Row): SignerRow => ({ ...row, config: JSON.parse(row.config) as Record<string, unknown> });
const params = (row: SignerRow) => ({ ...row, config: JSON.stringify(row.config) });

export function createSignersRepo(db: Db): SyncOf<SignersRepo> {
  const seedOne = db.prepare(
    `INSERT INTO signers (${COLUMNS}) VALUES (@id, @type, @config, @secret, @source, @created_at, @updated_at) ON CONFLICT (id) DO NOTHING`,
  );
  const insert = db.prepare(`
    INSERT INTO signers (${COLUMNS}) VALUES (@id, @type, @config, @secret, @source, @created_at, @updated_at)
    ON CONFLICT (id) DO UPDATE SET type = excluded.type, config = excluded.config, secret = excluded.secret, source = excluded.source,
      created_at = excluded.created_at, updated_at = excluded.updated_at, deleted_at = NULL
    WHERE signers.deleted_at IS NOT NULL`);
  const getOne = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM signers WHERE id = ? AND deleted_at IS NULL`);
  const listPage = db.prepare<[number, number], Row>(
    `SELECT ${COLUMNS} FROM signers WHERE deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?`,
  );
  const countAll = db.prepare<[], number>('SELECT COUNT(*) FROM signers WHERE deleted_at IS NULL').pluck();
  const deleted = db
    .prepare<[], string>("SELECT id FROM signers WHERE deleted_at IS NOT NULL AND source = 'config' ORDER BY id")
    .pluck();
  // A deleted signer's secret is of no further use: it is dropped, not kept hidden.
  const markDeleted = db.prepare(
    'UPDATE signers SET deleted_at = ?, updated_at = ?, secret = NULL WHERE id = ? AND deleted_at IS NULL',
  );
  const withSecret = db.prepare<[], { id: string; secret: string }>(
    'SELECT id, secret FROM signers WHERE secret IS NOT NULL ORDER BY id',
  );
  const putSecret = db.prepare('UPDATE signers SET secret = ? WHERE id = ?');
  const seedAll = db.transaction((rows: readonly SignerRow[]) => {
    for (const row of rows) seedOne.run(params(row));
  });

  return {
    seed: (rows) => seedAll(rows),
    insert: (row) => insert.run(params(row)).changes === 1,
    get(id) {
      const row = getOne.get(id);
      return row && toSigner(row);
    },
    list: (limit, offset) => listPage.all(limit, offset).map(toSigner),
    count: () => countAll.get() ?? 0,
    deletedIds: () => deleted.all(),
    remove: (id, now) => markDeleted.run(now, now, id).changes === 1,
    secrets: () => withSecret.all(),
    setSecret(id, secret) {
      putSecret.run(secret, id);
    },
  };
}
