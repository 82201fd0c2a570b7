// Plugin use cases: call a plugin through the runtime, list and describe the plugins it has loaded.
import { AppError, PluginError } from '../../errors.ts';
import type { CallInput, PluginCallResult, PluginInfo, RuntimeClient } from '../../runtime-client.ts';
import type { PluginCallOutcome } from '../../metrics.ts';

/** Where each finished call is reported (metrics). */
export interface PluginCallObserver {
  pluginCall(pluginId: string, outcome: PluginCallOutcome, seconds: number): void;
}

/** A call that never reached a plugin (unknown id, GET not allowed) is not a plugin call. */
function outcomeOf(err: unknown): PluginCallOutcome | undefined {
  if (err instanceof PluginError) {
    if (err.code === 'TIMEOUT') return 'timeout';
    if (err.code === 'MEMORY_LIMIT_EXCEEDED') return 'memory';
    return 'plugin_error';
  }
  if (err instanceof AppError && (err.code === 'RUNTIME_UNAVAILABLE' || err.code === 'PLUGIN_BUSY')) return 'overload';
  return undefined;
}

/** A plugin as GET /api/v1/plugins shows it; its `config` values stay private. */
export interface PluginView {
  id: string;
  path: string;
  state: 'ready' | 'error';
  error: { code: string; message: string } | null;
  settings: Omit<PluginInfo['settings'], 'config'> & { config_keys: string[] };
}

export interface PluginService {
  call(pluginId: string, input: CallInput): Promise<PluginCallResult>;
  list(): PluginView[];
  get(pluginId: string): PluginView;
}

function view(p: PluginInfo): PluginView {
  const { config, ...settings } = p.settings;
  return {
    id: p.id,
    path: p.path,
    state: p.state,
    error: p.error ? { code: p.error.code, message: p.error.message } : null,
    settings: { ...settings, config_keys: Object.keys(config ?? {}) },
  };
}

export function createPluginService(deps: { runtime: RuntimeClient; observer?: PluginCallObserver }): PluginService {
  const { runtime, observer } = deps;
  return {
    async call(pluginId, input) {
      const t0 = performance.now();
      try {
        const result = await runtime.call(pluginId, input);
        observer?.pluginCall(pluginId, 'ok', (performance.now() - t0) / 1000);
        return result;
      } catch (err) {
        const outcome = outcomeOf(err);
        if (outcome) observer?.pluginCall(pluginId, outcome, (performance.now() - t0) / 1000);
        throw err;
      }
    },
    list: () => runtime.plugins().map(view),
    get(pluginId) {
      const found = runtime.plugins().find((p) => p.id === pluginId);
      if (!found) throw new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
      return view(found);
    },
  };
}
