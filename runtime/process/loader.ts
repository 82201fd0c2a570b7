// The plugin registry: discovers plugins in PLUGINS_DIR (and config `path` entries), bundles and inspects them,
// and rebuilds on any change in the directory (fs.watch plus a slow poll as a safety net).
import type { ConfiguredPlugin, PluginInfo } from '../protocol.ts';
import { createRegistry, listPlugins, resettle, type LoadedPlugin, type LoaderDeps } from './registry.ts';
import { createScanner } from './scan.ts';
import { dirSignature, watchPluginsDir } from './watch.ts';

export interface Loader {
  start(): Promise<void>;
  get(id: string): LoadedPlugin | undefined;
  code(hash: string): string | undefined;
  list(): PluginInfo[];
  /** Replaces the operator's entries and settles every loaded plugin again with them (no rebundling). */
  reconfigure(entries: ConfiguredPlugin[]): void;
  close(): void;
}

export function createLoader(deps: LoaderDeps): Loader {
  const reg = createRegistry(deps);
  const scanner = createScanner(reg);
  let watching: { close(): void } | undefined;
  return {
    reconfigure(entries) {
      resettle(reg, entries);
      deps.onChange(listPlugins(reg));
      // An entry may name a new path, or settle a plugin that failed on its settings: scan too.
      scanner.schedule();
    },
    async start() {
      const signature = dirSignature(deps.pluginsDir);
      await scanner.scan();
      watching = watchPluginsDir(deps.pluginsDir, signature, scanner.schedule, deps.log);
    },
    get: (id) => reg.plugins.get(id),
    code: (hash) => reg.codes.get(hash),
    list: () => listPlugins(reg),
    close() {
      watching?.close();
      scanner.cancel();
    },
  };
}
