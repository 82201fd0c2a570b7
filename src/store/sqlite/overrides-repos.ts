// SQLite repositories for the settings changed through the API over the config file's: network RPC URLs, plugin settings.
import type { Db } from './db.ts';
import type { NetworkOverride, NetworkOverridesRepo } from '../../domain/networks/ports.ts';
import type { PluginOverride, PluginOverridesRepo } from '../../domain/plugins/ports.ts';
import type { SyncOf } from './sync-ops.ts';

export function createNetworkOverridesRepo(db: Db): SyncOf<NetworkOverridesRepo> {
  const all = db.prepare<[], Omit<NetworkOverride, 'rpc_urls'> & { rpc_urls: string }>(
    'SELECT network_type, name, rpc_urls, updated_at FROM network_overrides ORDER BY network_type, name',
  );
  const put = db.prepare(`
    INSERT INTO network_overrides (network_type, name, rpc_urls, updated_at) VALUES (@network_type, @name, @rpc_urls, @updated_at)
    ON CONFLICT (network_type, name) DO UPDATE SET rpc_urls = excluded.rpc_urls, updated_at = excluded.updated_at`);
  return {
    all: () => all.all().map((r) => ({ ...r, rpc_urls: JSON.parse(r.rpc_urls) as NetworkOverride['rpc_urls'] })),
    put: (o) => {
      put.run({ ...o, rpc_urls: JSON.stringify(o.rpc_urls) });
    },
  };
}

export function createPluginOverridesRepo(db: Db): SyncOf<PluginOverridesRepo> {
  const all = db.prepare<[], Omit<PluginOverride, 'settings'> & { settings: string }>(
    'SELECT plugin_id, settings, updated_at FROM plugin_overrides ORDER BY plugin_id',
  );
  const put = db.prepare(`
    INSERT INTO plugin_overrides (plugin_id, settings, updated_at) VALUES (@plugin_id, @settings, @updated_at)
    ON CONFLICT (plugin_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`);
  return {
    all: () => all.all().map((r) => ({ ...r, settings: JSON.parse(r.settings) as Record<string, unknown> })),
    put: (o) => {
      put.run({ ...o, settings: JSON.stringify(o.settings) });
    },
  };
}
