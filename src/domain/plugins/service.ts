// Plugin use cases: call a plugin through the runtime, list and describe the plugins it has loaded.
import { AppError } from '../../errors.ts';
import type { CallInput, PluginCallResult, PluginInfo, RuntimeClient } from '../../runtime-client.ts';

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

export function createPluginService(deps: { runtime: RuntimeClient }): PluginService {
  const { runtime } = deps;
  return {
    call: (pluginId, input) => runtime.call(pluginId, input),
    list: () => runtime.plugins().map(view),
    get(pluginId) {
      const found = runtime.plugins().find((p) => p.id === pluginId);
      if (!found) throw new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
      return view(found);
    },
  };
}
