// PostgreSQL repositories for what is managed through the API: signers, network RPC URL and plugin setting
// overrides, API keys (same behaviour as src/store/sqlite/{signers-repo,overrides-repos,api-keys-repo}.ts).
import { sql, type Kysely } from 'kysely';
import type { SignerRow, SignersRepo } from '../../domain/signers/ports.ts';
import type { NetworkOverride, NetworkOverridesRepo } from '../../domain/networks/ports.ts';
import type { PluginOverridesRepo } from '../../domain/plugins/ports.ts';
import type { ApiKeyRow, ApiKeysRepo } from '../../domain/api-keys/ports.ts';
import type { Database, SignersTable } from './schema.ts';

const SIGNER_COLUMNS = ['id', 'type', 'config', 'secret', 'source', 'created_at', 'updated_at'] as const;
const toSigner = (row: Omit<SignersTable, 'deleted_at'>): SignerRow => ({ ...row, config: JSON.parse(row.config) as Record<string, unknown> });
const signerValues = (row: SignerRow) => ({ ...row, config: JSON.stringify(row.config) });

async function countOf(q: Kysely<Database>, table: 'signers' | 'api_keys', visibleOnly: boolean): Promise<number> {
  let query = q.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n'));
  if (visibleOnly) query = query.where(sql.ref('deleted_at'), 'is', null);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export function createSignersRepo(q: Kysely<Database>): SignersRepo {
  const visible = () => q.selectFrom('signers').select(SIGNER_COLUMNS).where('deleted_at', 'is', null);
  return {
    async seed(rows) {
      if (rows.length === 0) return;
      await q.insertInto('signers').values(rows.map(signerValues)).onConflict((oc) => oc.column('id').doNothing()).execute();
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
    count: () => countOf(q, 'signers', true),
    async deletedIds() {
      const rows = await q.selectFrom('signers').select('id').where('deleted_at', 'is not', null).where('source', '=', 'config').orderBy('id').execute();
      return rows.map((r) => r.id);
    },
    async remove(id, now) {
      // A deleted signer's secret is of no further use: it is dropped, not kept hidden.
      const r = await q.updateTable('signers').set({ deleted_at: now, updated_at: now, secret: null }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    async secrets() {
      const rows = await q.selectFrom('signers').select(['id', 'secret']).where('secret', 'is not', null).orderBy('id').execute();
      return rows.map((r) => ({ id: r.id, secret: r.secret! }));
    },
    async setSecret(id, secret) {
      await q.updateTable('signers').set({ secret }).where('id', '=', id).execute();
    },
  };
}

export function createNetworkOverridesRepo(q: Kysely<Database>): NetworkOverridesRepo {
  return {
    async all() {
      const rows = await q.selectFrom('network_overrides').selectAll().orderBy('network_type').orderBy('name').execute();
      return rows.map((r) => ({ ...r, rpc_urls: JSON.parse(r.rpc_urls) as NetworkOverride['rpc_urls'] }));
    },
    async put(o) {
      await q
        .insertInto('network_overrides')
        .values({ ...o, rpc_urls: JSON.stringify(o.rpc_urls) })
        .onConflict((oc) => oc.columns(['network_type', 'name']).doUpdateSet((eb) => ({ rpc_urls: eb.ref('excluded.rpc_urls'), updated_at: eb.ref('excluded.updated_at') })))
        .execute();
    },
  };
}

export function createPluginOverridesRepo(q: Kysely<Database>): PluginOverridesRepo {
  return {
    async all() {
      const rows = await q.selectFrom('plugin_overrides').selectAll().orderBy('plugin_id').execute();
      return rows.map((r) => ({ ...r, settings: JSON.parse(r.settings) as Record<string, unknown> }));
    },
    async put(o) {
      await q
        .insertInto('plugin_overrides')
        .values({ ...o, settings: JSON.stringify(o.settings) })
        .onConflict((oc) => oc.column('plugin_id').doUpdateSet((eb) => ({ settings: eb.ref('excluded.settings'), updated_at: eb.ref('excluded.updated_at') })))
        .execute();
    },
  };
}

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
      const values = { ...row, permissions: JSON.stringify(row.permissions), allowed_origins: JSON.stringify(row.allowed_origins), rate_limit: row.rate_limit && JSON.stringify(row.rate_limit) };
      const r = await q.insertInto('api_keys').values(values).onConflict((oc) => oc.doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    get: (id) => one('id', id),
    findByHash: (hash) => one('key_hash', hash),
    list: async (limit, offset) => (await q.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()).map(toKey),
    count: () => countOf(q, 'api_keys', false),
    async remove(id) {
      const r = await q.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
  };
}
