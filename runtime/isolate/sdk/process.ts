// Injected by runtime/process/bundler.ts into plugins that mention `process`: a stand-in with the plugin's own `env` (what
// runtime/process/plugin-env.ts picked for it, kept by the prelude under a symbol) and no `versions.node`, so libraries
// take their browser paths. Nothing of the service's process object is reachable.
const env = {
  ...((globalThis as Record<symbol, unknown>)[Symbol.for('relaybox.env')] as Record<string, string> | undefined),
};

export const process = {
  env,
  argv: [] as string[],
  execArgv: [] as string[],
  versions: {} as Record<string, string>,
  version: '',
  platform: 'sandbox',
  browser: true,
  pid: 0,
  cwd: () => '/',
  nextTick: (fn: (...args: unknown[]) => void, ...args: unknown[]) => queueMicrotask(() => fn(...args)),
  emitWarning: () => {},
};
