// What the legacy plugin forms import besides the real SDK: the reference's `plugins/lib/plugin` module (imported as
// "../lib/plugin" by its example-deprecated.ts and kv-storage.ts) and our `@relaybox/plugin-sdk` alias. Everything
// the real `@openzeppelin/relayer-sdk` exports is re-exported with its real value (runtime/process/bundler.ts bundles the
// real package); only `runPlugin` is ours: it hands the plugin's function to the sandbox prelude, which calls it as
// the reference's executor does, `main(api, params)`.
export * from '@openzeppelin/relayer-sdk';

/** The prelude's registration hook for the legacy form (runtime/isolate/prelude/entries.ts). */
const LEGACY = Symbol.for('relaybox.runPlugin');

/** Legacy entry point: `runPlugin(main)` at module top level; each call runs `main(api, params)`. */
export async function runPlugin<T, R>(
  main: (api: import('@openzeppelin/relayer-sdk').PluginAPI, params: T) => Promise<R>,
): Promise<void> {
  const register = (globalThis as Record<symbol, unknown>)[LEGACY];
  if (typeof register === 'function' && typeof main === 'function') register(main);
}
