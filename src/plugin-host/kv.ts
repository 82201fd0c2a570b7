// The host side of plugin KV: each plugin's quota, and the kv.* host calls, each on the calling plugin's own
// namespace of the KV store (a plugin names no namespace: it is the plugin id the runtime relays).
import type { Config } from '../config/config.ts';
import type { KvQuota, KvRepo } from '../domain/kv/ports.ts';

// biome-ignore lint/suspicious/noExplicitAny: the call's parsed argument object: each operation checks the fields it reads
type Args = Record<string, any>;

/** One kv.* operation: returns the JSON text of its value. `args` is the call's parsed argument object. */
export type KvOperation = (
  kv: KvRepo,
  plugin: string,
  args: Args,
  quotaOf: (pluginId: string) => KvQuota,
) => Promise<string>;

// `await` on every store call: the repository may be synchronous (SQLite) or asynchronous.
const KV_OPERATIONS: Record<string, KvOperation> = {
  'kv.get': async (kv, plugin, args) => (await kv.get(plugin, args.key)) ?? 'null',
  'kv.set': async (kv, plugin, args, quotaOf) => {
    await kv.set(
      plugin,
      args.key,
      JSON.stringify(args.value ?? null),
      Object.hasOwn(args, 'ttlSec') ? args.ttlSec : undefined,
      quotaOf(plugin),
    );
    return 'true';
  },
  'kv.del': async (kv, plugin, args) => String(await kv.del(plugin, args.key)),
  'kv.exists': async (kv, plugin, args) => String(await kv.exists(plugin, args.key)),
  'kv.listKeys': async (kv, plugin, args) => JSON.stringify(await kv.listKeys(plugin, args.pattern)),
  'kv.clear': async (kv, plugin) => String(await kv.clear(plugin)),
  'kv.lock': async (kv, plugin, args) => JSON.stringify(await kv.lock(plugin, args.key, args.ttlSec)),
  'kv.unlock': async (kv, plugin, args) => String(await kv.unlock(plugin, args.key, args.token)),
};

/** The kv.* operation named `op`, or undefined when `op` names none. */
export function kvOperation(op: unknown): KvOperation | undefined {
  return typeof op === 'string' && Object.hasOwn(KV_OPERATIONS, op) ? KV_OPERATIONS[op] : undefined;
}

/** Each plugin's KV quota: its config file entry's, else the defaults from the environment. */
export function kvQuotas(config: Config): (pluginId: string) => KvQuota {
  const rt = config.pluginRuntime;
  const configured = new Map(config.file.plugins.map((p) => [p.id, p]));
  return (pluginId) => ({
    maxKeys: configured.get(pluginId)?.kv_max_keys ?? rt.kvMaxKeys,
    maxBytes: configured.get(pluginId)?.kv_max_bytes ?? rt.kvMaxBytes,
  });
}
