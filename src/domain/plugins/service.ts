// Plugin use cases: call a plugin through the runtime, list and describe the plugins it has loaded.
import path from 'node:path';
import { AppError, PluginError } from '../../errors.ts';
import type { Page, PageRequest } from '../types.ts';
import type { Log } from '../log.ts';
import type {
  ConfiguredPlugin,
  PluginCallInput,
  PluginCallObserver,
  PluginCallOutcome,
  PluginCallResult,
  PluginInfo,
  PluginOverridesRepo,
  PluginRuntime,
} from './ports.ts';

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

/**
 * A plugin as GET /api/v1/plugins shows it: flat, as the reference's PluginModel (`id`, `path`, `timeout`, `emit_logs`,
 * …), plus its state and our operator limits. `path` is relative to the plugins directory; `config` and `env`
 * values stay private (only `config_keys`, `env_keys`).
 */
export type PluginView = {
  id: string;
  path: string;
  state: 'ready' | 'error';
  /** sha256 of the bundled code: every instance of a deployment should show the same one (null: not loadable). */
  content_hash: string | null;
  error: { code: string; message: string } | null;
  forward_logs: boolean;
  config_keys: string[];
  env_keys: string[];
} & Omit<PluginInfo['settings'], 'config' | 'env'>;

/** PATCH /api/v1/plugins/{id} after validation: null puts a field back to the config file's (config: null clears it). */
export type PluginChanges = Partial<
  Record<'timeout', number | null> &
    Record<'emit_logs' | 'emit_traces' | 'raw_response' | 'allow_get_invocation' | 'forward_logs', boolean | null>
> & {
  config?: Record<string, unknown> | null;
};

export interface PluginService {
  call(pluginId: string, input: PluginCallInput): Promise<PluginCallResult>;
  list(query?: PageRequest): Page<PluginView>;
  get(pluginId: string): PluginView;
  /** Stores the change (it survives restarts, over the config file's entry) and applies it to the runtime at once. */
  update(pluginId: string, changes: PluginChanges): Promise<PluginView>;
}

export interface PluginServiceDeps {
  runtime: PluginRuntime;
  observer?: PluginCallObserver;
  pluginsDir?: string;
  /** The config file's entries, and the stored changes (read at start by operatorEntries). */
  configured?: readonly ConfiguredPlugin[];
  overrides?: Map<string, Record<string, unknown>>;
  repo?: PluginOverridesRepo;
  logger?: Log;
}

/** The operator's entries: the config file's with the stored changes applied over them (the store wins). */
export function operatorEntries(
  configured: readonly ConfiguredPlugin[],
  overrides: ReadonlyMap<string, Record<string, unknown>>,
): ConfiguredPlugin[] {
  const out = configured.map((e) => ({ ...e, ...(overrides.get(e.id) ?? {}) }) as ConfiguredPlugin);
  for (const [id, o] of overrides) if (!configured.some((e) => e.id === id)) out.push({ id, ...o } as ConfiguredPlugin);
  return out;
}

export function createPluginService(deps: PluginServiceDeps): PluginService {
  const { runtime, observer } = deps;
  const overrides = deps.overrides ?? new Map<string, Record<string, unknown>>();
  const configured = deps.configured ?? [];
  const forwardLogs = (id: string) =>
    Boolean(operatorEntries(configured, overrides).find((e) => e.id === id)?.forward_logs);
  const view = (p: PluginInfo): PluginView => {
    // `config` and `env` values may be secrets (an admin secret, an API key): only their names are shown.
    const { config, env, ...settings } = p.settings;
    const relative = deps.pluginsDir ? path.relative(deps.pluginsDir, p.path) : p.path;
    return {
      id: p.id,
      path: relative.startsWith('..') ? p.path : relative,
      ...settings,
      // The runtime's effective value (file or operator) when it reports one.
      forward_logs: typeof settings.forward_logs === 'boolean' ? settings.forward_logs : forwardLogs(p.id),
      config_keys: Object.keys(config ?? {}),
      env_keys: Object.keys(env ?? {}),
      state: p.state,
      content_hash: p.hash ?? null,
      error: p.error ? { code: p.error.code, message: p.error.message } : null,
    };
  };
  const find = (pluginId: string) => {
    const found = runtime.plugins().find((p) => p.id === pluginId);
    if (!found) throw new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
    return found;
  };
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
    list(query = { page: 1, per_page: 100 }) {
      const all = runtime.plugins();
      const items = all.slice((query.page - 1) * query.per_page, query.page * query.per_page).map(view);
      return { items, pagination: { current_page: query.page, per_page: query.per_page, total_items: all.length } };
    },
    get: (pluginId) => view(find(pluginId)),
    async update(pluginId, changes) {
      const current = find(pluginId);
      const merged: Record<string, unknown> = { ...(overrides.get(pluginId) ?? {}) };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null && key !== 'config') delete merged[key];
        else merged[key] = value === null ? {} : value;
      }
      if (!deps.repo) throw new AppError('INTERNAL', { reason: 'plugin settings cannot be stored' });
      await deps.repo.put({ plugin_id: pluginId, settings: merged, updated_at: new Date().toISOString() });
      overrides.set(pluginId, merged);
      await runtime.configure(operatorEntries(configured, overrides));
      deps.logger?.info({ pluginId, changed: Object.keys(changes) }, 'plugin settings changed');
      return view(runtime.plugins().find((p) => p.id === pluginId) ?? current);
    },
  };
}
