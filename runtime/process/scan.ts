// Rescans the plugins folder: one scan at a time (a request during a scan runs one more after it), debounced triggers.
import { pluginFiles } from './discover.ts';
import { loadPlugin } from './load-plugin.ts';
import { listPlugins, type LoadedPlugin, type Registry } from './registry.ts';

export interface Scanner {
  /** Scans now, or once more after the scan under way; resolves when no scan is left to run. */
  scan(): Promise<void>;
  /** Scans 40 ms after the last of a burst of calls. */
  schedule(): void;
  /** Drops a scheduled scan. */
  cancel(): void;
}

/** Loads every plugin found, replaces the registry's entries with them, and reports what changed. */
async function scanOnce(reg: Registry, warned: Set<string>): Promise<void> {
  const { deps, plugins, codes } = reg;
  const files = pluginFiles(deps.pluginsDir, reg.configured, warned, deps.log);
  const next = new Map<string, LoadedPlugin>();
  await Promise.all(
    [...files].map(async ([id, file]) => {
      const loaded = await loadPlugin(reg, id, file);
      next.set(id, loaded);
    }),
  );
  let changed = next.size !== plugins.size;
  for (const [id, p] of next) {
    const before = plugins.get(id);
    if (before !== p) {
      changed = true;
      if (p.state === 'error')
        deps.log('warn', `plugin '${id}' is not callable: ${p.error?.message}`, { plugin: id, code: p.error?.code });
      else deps.log('info', `plugin '${id}' loaded`, { plugin: id, hash: p.hash, path: p.path });
    }
  }
  for (const id of plugins.keys()) if (!next.has(id)) deps.log('info', `plugin '${id}' removed`, { plugin: id });
  plugins.clear();
  for (const [id, p] of next) plugins.set(id, p);
  const live = new Set([...plugins.values()].map((p) => p.hash));
  for (const hash of codes.keys()) if (!live.has(hash)) codes.delete(hash);
  reg.seeds.clear();
  if (reg.fresh.length > 0) {
    deps.onCache(reg.fresh);
    reg.fresh = [];
  }
  if (changed) deps.onChange(listPlugins(reg));
}

export function createScanner(reg: Registry): Scanner {
  const warned = new Set<string>();
  let scanning: Promise<void> | undefined;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;

  function scan(): Promise<void> {
    if (scanning) {
      again = true;
      return scanning;
    }
    scanning = (async () => {
      try {
        do {
          again = false;
          await scanOnce(reg, warned);
        } while (again);
      } catch (err) {
        reg.deps.log('error', `plugin scan failed: ${(err as Error).message}`);
      } finally {
        scanning = undefined;
      }
    })();
    return scanning;
  }

  return {
    scan,
    schedule() {
      clearTimeout(debounce);
      debounce = setTimeout(() => void scan(), 40);
    },
    cancel: () => clearTimeout(debounce),
  };
}
