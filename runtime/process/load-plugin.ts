// Loads one plugin: reuses it while its inputs are unchanged (or the previous runtime's bundle of them), else bundles
// it and has a worker inspect it.
import { runtimeError } from '../common/errors.ts';
import { bundlePlugin, unchanged } from './bundler.ts';
import type { ErrorData, PluginSettings } from '../protocol.ts';
import { configOverrides, fallbackSettings, settle, type LoadedPlugin, type Registry } from './registry.ts';
import { DEFAULT_SETTINGS } from './settings.ts';

const INSPECT_TIMEOUT_MS = 5000;

export async function loadPlugin(reg: Registry, id: string, file: string): Promise<LoadedPlugin> {
  const { deps, codes } = reg;
  const previous = reg.plugins.get(id);
  if (previous?.path === file && previous.inputs && unchanged(previous.inputs)) return previous;
  const seed = reg.seeds.get(id);
  reg.seeds.delete(id);
  if (seed && seed.path === file && codes.has(seed.hash) && unchanged(seed.inputs))
    return settle(reg, id, file, seed.hash, seed.inputs, seed.fileSettings);
  const fail = (error: ErrorData, settings = fallbackSettings(reg, id)): LoadedPlugin => ({
    id,
    path: file,
    state: 'error',
    error,
    settings,
    configJson: JSON.stringify(settings.config),
  });
  const bundled = await bundlePlugin(file, deps.pluginsDir);
  if (!bundled.ok) return fail(runtimeError('compileError', { reason: bundled.message }));
  if (previous?.hash === bundled.hash && previous.fileSettings !== undefined) {
    previous.inputs = bundled.inputs;
    return previous;
  }
  codes.set(bundled.hash, bundled.code);
  let overrides: Partial<PluginSettings>;
  try {
    overrides = configOverrides(reg, id);
  } catch (err) {
    return fail(runtimeError('invalidSettings', { reason: (err as Error).message }), {
      ...DEFAULT_SETTINGS,
      ...deps.defaults,
    });
  }
  if (deps.quarantine[id]?.hash === bundled.hash) return settle(reg, id, file, bundled.hash, bundled.inputs, 'null');
  const inspected = await deps.inspect({
    kind: 'inspect',
    plugin: id,
    hash: bundled.hash,
    memoryMb: overrides.memory_mb ?? DEFAULT_SETTINGS.memory_mb,
    timeoutMs: INSPECT_TIMEOUT_MS,
  });
  if (!inspected.ok) return fail(inspected.error);
  if (!inspected.hasHandler)
    return fail({
      code: 'LOAD_ERROR',
      message: 'Plugin does not export a handler function (export async function handler(context) { … })',
      status: 500,
    });
  return settle(reg, id, file, bundled.hash, bundled.inputs, inspected.settings);
}
