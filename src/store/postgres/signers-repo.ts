// PostgreSQL repository of the signers managed through the API (same behaviour as src/store/sqlite/signers-repo.ts).
import { sql, type Kysely } from 'kysely';
import type { SignerRow, SignersRepo } from '../../domain/signers/ports.ts';
import type { Database, SignersTable } from './schema.ts';

const SIGNER_COLUMNS = ['id', 'type', 'config', 'secret', 'source', 'created_at', 'updated_at'] as const;
const toSigner = (row: Omit<SignersTable, 'deleted_at'>): SignerRow => ({
  ...row,
  config: JSON.parse(row.config) as Record<string, unknown>,
});
const signerValues = (row: SignerRow) => ({ ...row, config: JSON.stringify(row.config) });

/** Visible signers (a deleted one keeps its row until its id is taken again). */
async function countVisible(q: Kysely<Database>): Promise<number> {
  const query = q
    .selectFrom('signers')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(sql.ref('deleted_at'), 'is', null);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export function createSignersRepo(q: Kysely<Database>): SignersRepo {
  const visible = () => q.selectFrom('signers').select(SIGNER_COLUMNS).where('deleted_at', 'is', null);
  return {
    async seed(rows) {
      if (rows.length === 0) return;
      await q
        .insertInto('signers')
        .values(rows.map(signerValues))
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
    async insert(row) {
      // A deleted signer's id may be taken again: its row is replaced; a visible one keeps the id.
      const r = await q
        .insertInto('signers')
        .values(signerValues(row))
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => ({
              type: eb.ref('excluded.type'),
              config: eb.ref('excluded.config'),
              secret: eb.ref('excluded.secret'),
              source: eb.ref('excluded.source'),
              created_at: eb.ref('excluded.created_at'),
              updated_at: eb.ref('excluded.updated_at'),
              deleted_at: null,
            }))
            .where('signers.deleted_at', 'is not', null),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async get(id) {
      const row = await visible().where('id', '=', id).executeTakeFirst();
      return row && toSigner(row);
    },
    list: async (limit, offset) => (await visible().orderBy('id').limit(limit).offset(offset).execute()).map(toSigner),
    count: () => countVisible(q),
    async deletedIds() {
      const rows = await q
        .selectFrom('signers')
        .select('id')
        .where('deleted_at', 'is not', null)
        .where('source', '=', 'config')
        .orderBy('id')
        .execute();
      return rows.map((r) => r.id);
    },
    async remove(id, now) {
      // A deleted signer's secret is of no further use: it is dropped, not kept hidden.
      const r = await q
        .updateTable('signers')
        .set({ deleted_at: now, updated_at: now, secret: null })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    async secrets() {
      const rows = await q
        .selectFrom('signers')
        .select(['id', 'secret'])
        .where('secret', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ id: r.id, secret: r.secret! }));
    },
    async setSecret(id, secret) {
      await q.updateTable('signers').set({ secret }).where('id', '=', id).execute();
    },
  };
}
