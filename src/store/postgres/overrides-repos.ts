// PostgreSQL repositories for the settings changed through the API over the config file's: network RPC URLs, plugin
// settings (same behaviour as src/store/sqlite/overrides-repos.ts).
import type { Kysely } from 'kysely';
import type { NetworkOverride, NetworkOverridesRepo } from '../../domain/networks/ports.ts';
import type { PluginOverridesRepo } from '../../domain/plugins/ports.ts';
import type { Database } from './schema.ts';

export function createNetworkOverridesRepo(q: Kysely<Database>): NetworkOverridesRepo {
  return {
    async all() {
      const rows = await q
        .selectFrom('network_overrides')
        .selectAll()
        .orderBy('network_type')
        .orderBy('name')
        .execute();
      return rows.map((r) => ({ ...r, rpc_urls: JSON.parse(r.rpc_urls) as NetworkOverride['rpc_urls'] }));
    },
    async put(o) {
      await q
        .insertInto('network_overrides')
        .values({ ...o, rpc_urls: JSON.stringify(o.rpc_urls) })
        .onConflict((oc) =>
          oc.columns(['network_type', 'name']).doUpdateSet((eb) => ({
            rpc_urls: eb.ref('excluded.rpc_urls'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
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
        .onConflict((oc) =>
          oc.column('plugin_id').doUpdateSet((eb) => ({
            settings: eb.ref('excluded.settings'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    },
  };
}
