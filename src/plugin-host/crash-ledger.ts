// Which plugins crashed the runtime process, and which are quarantined for it: a plugin (one bundle, by hash) that
// crashes it `crashes` times within `windowSec`, or once while loading (every restart would crash again), answers
// PLUGIN_QUARANTINED until its file changes. Lives in the HTTP process, so it outlasts the runtime's restarts.

export interface Quarantine {
  hash: string;
  reason: string;
}

export interface CrashLedger {
  /** Records one crash attributed to `plugin`; returns its quarantine when this crash triggers it. */
  record(plugin: string, hash: string, whileLoading: boolean, now?: number): Quarantine | undefined;
  /** What the next runtime process must refuse to run: id → bundle hash and reason. */
  quarantined(): Record<string, Quarantine>;
}

export function createCrashLedger(options: { crashes: number; windowSec: number }): CrashLedger {
  const crashes = new Map<string, { hash: string; at: number[] }>();
  const quarantined: Record<string, Quarantine> = {};
  return {
    record(plugin, hash, whileLoading, now = Date.now()) {
      let entry = crashes.get(plugin);
      if (!entry || entry.hash !== hash) {
        entry = { hash, at: [] };
        crashes.set(plugin, entry);
      }
      entry.at = entry.at.filter((t) => now - t < options.windowSec * 1000);
      entry.at.push(now);
      if (!whileLoading && entry.at.length < options.crashes) return undefined;
      const reason = whileLoading
        ? 'Plugin crashed the sandbox runtime while loading (it exhausted the sandbox memory); it is quarantined until its file changes'
        : `Plugin crashed the sandbox runtime ${entry.at.length} times within ${options.windowSec} s; it is quarantined until its file changes`;
      quarantined[plugin] = { hash, reason };
      return quarantined[plugin];
    },
    quarantined: () => ({ ...quarantined }),
  };
}
