// The runtime's plugin registry as last reported, and the bundles it made (its warm-start cache): both held in the
// HTTP process, so they outlast the runtime process's restarts (the plugins stay listed, unchanged ones skip esbuild).
import type { CachedPlugin, PluginInfo } from '../../runtime/protocol.ts';

export interface RegistryMirror {
  /** The plugins the runtime last reported (kept while it restarts). */
  plugins(): PluginInfo[];
  /** 'ready': the registry of a runtime process that has just started serving. */
  loaded(plugins: PluginInfo[]): void;
  /** 'plugins': the registry settled again; the cache forgets plugins gone or not loadable, configure() waiters wake. */
  settled(plugins: PluginInfo[]): void;
  /** 'cache': plugins (re)bundled since the last report. */
  remember(plugins: CachedPlugin[]): void;
  /** What the next runtime process starts warm with. */
  cached(): CachedPlugin[];
  /** Resolves at the next settled registry, or after `ms`. */
  nextReport(ms: number): Promise<void>;
}

export function createRegistryMirror(): RegistryMirror {
  let registry: PluginInfo[] = [];
  const cache = new Map<string, CachedPlugin>();
  /** configure() callers waiting for the runtime's next registry report. */
  const waiters: Array<() => void> = [];
  return {
    plugins: () => registry,
    loaded(plugins) {
      registry = plugins;
    },
    settled(plugins) {
      registry = plugins;
      for (const id of cache.keys()) if (!registry.some((p) => p.id === id && p.hash)) cache.delete(id);
      for (const settled of waiters.splice(0)) settled();
    },
    /** Keeps the newest bundle of each plugin; an entry without code reuses the code held for its hash. */
    remember(plugins) {
      for (const p of plugins) {
        const code = p.code ?? [...cache.values()].find((c) => c.hash === p.hash)?.code;
        if (code === undefined) cache.delete(p.id);
        else cache.set(p.id, { ...p, code });
      }
    },
    cached: () => [...cache.values()],
    nextReport(ms) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
