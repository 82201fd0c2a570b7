// The registry of loaded plugins: their bundles' code by hash, their effective settings and states, and the cache
// entries owed to the HTTP process for the next runtime's warm start.
import {
  OPERATOR_SETTINGS,
  type CachedPlugin,
  type ConfiguredPlugin,
  type InspectResult,
  type InspectTask,
  type PluginDefaults,
  type PluginInfo,
  type PluginSettings,
  type Quarantined,
} from '../protocol.ts';
import { runtimeError } from '../common/errors.ts';
import { pluginEnvJson } from './plugin-env.ts';
import { checkSettings, DEFAULT_SETTINGS } from './settings.ts';

export interface LoadedPlugin extends PluginInfo {
  configJson: string;
  /** The plugin's `process.env` as JSON (plugin-env.ts), the same for every call of this load. */
  envJson?: string;
  /** The bundle's input files and their stamps: while unchanged, the plugin is not bundled again. */
  inputs?: Array<[string, string]>;
  /** The plugin file's own `settings` as inspected (JSON). */
  fileSettings?: string;
}

export interface LoaderDeps {
  pluginsDir: string;
  configured: ConfiguredPlugin[];
  defaults: PluginDefaults;
  quarantine: Record<string, Quarantined>;
  /** The previous runtime's registry: plugins whose inputs are unchanged load without esbuild or inspection. */
  cache: CachedPlugin[];
  inspect(task: InspectTask): Promise<InspectResult>;
  onChange(plugins: PluginInfo[]): void;
  /** Plugins (re)bundled, for the next runtime's warm start; `code` omitted where the receiver has it. */
  onCache(plugins: CachedPlugin[]): void;
  log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void;
  /** The service's environment without its credentials: a plugin receives the variables of it its code names or its entry lists. */
  serviceEnv: Record<string, string>;
}

export interface Registry {
  readonly deps: LoaderDeps;
  readonly plugins: Map<string, LoadedPlugin>;
  readonly codes: Map<string, string>;
  /** The operator's entries, by id. */
  readonly configured: Map<string, ConfiguredPlugin>;
  /** The previous runtime's plugins, by id, until the first scan has used them. */
  readonly seeds: Map<string, CachedPlugin>;
  /** Hashes whose code the HTTP process already holds (it sent them): cache messages omit their code. */
  readonly sent: Set<string>;
  /** Plugins settled since the last cache message. */
  fresh: CachedPlugin[];
}

export function createRegistry(deps: LoaderDeps): Registry {
  const codes = new Map<string, string>();
  for (const c of deps.cache) if (c.code !== undefined) codes.set(c.hash, c.code);
  return {
    deps,
    plugins: new Map(),
    codes,
    configured: new Map(deps.configured.map((p) => [p.id, p])),
    seeds: new Map(deps.cache.map((c) => [c.id, c])),
    sent: new Set(deps.cache.map((c) => c.hash)),
    fresh: [],
  };
}

export function configOverrides(reg: Registry, id: string): Partial<PluginSettings> {
  const entry = reg.configured.get(id);
  if (!entry) return {};
  const { id: _id, path: _path, ...rest } = entry;
  return checkSettings(rest, `plugins[${id}]`, true);
}

export const fallbackSettings = (reg: Registry, id: string): PluginSettings => ({
  ...DEFAULT_SETTINGS,
  ...reg.deps.defaults,
  ...safe(() => configOverrides(reg, id)),
});

/** A bundle that loaded (or was refused) on its own merits: its effective settings, quarantine and state. */
export function settle(
  reg: Registry,
  id: string,
  file: string,
  hash: string,
  inputs: Array<[string, string]>,
  fileSettings: string,
): LoadedPlugin {
  const { deps } = reg;
  const base = { id, path: file, hash, inputs, fileSettings };
  let settings: PluginSettings;
  try {
    const overrides = configOverrides(reg, id);
    const own = checkSettings(JSON.parse(fileSettings), 'settings');
    for (const key of [...OPERATOR_SETTINGS, 'allowed_origins', 'env', 'service_env'] as const) {
      const set =
        key === 'allowed_origins' || key === 'env' || key === 'service_env'
          ? (JSON.parse(fileSettings) as Record<string, unknown> | null)?.[key]
          : own[key];
      if (set !== undefined)
        deps.log(
          'warn',
          `plugin '${id}': settings.${key} is set by the operator (config file or environment), not by the plugin; ignored`,
          { plugin: id },
        );
      delete own[key];
    }
    settings = { ...DEFAULT_SETTINGS, ...deps.defaults, ...own, ...overrides };
  } catch (err) {
    return {
      ...base,
      hash: undefined,
      state: 'error',
      error: runtimeError('invalidSettings', { reason: (err as Error).message }),
      settings: fallbackSettings(reg, id),
      configJson: '{}',
    };
  }
  const quarantined = deps.quarantine[id];
  if (quarantined?.hash === hash) {
    return {
      ...base,
      hash: undefined,
      state: 'error',
      error: runtimeError('quarantined', { reason: quarantined.reason }),
      settings,
      configJson: '{}',
    };
  }
  if (!reg.sent.has(hash)) {
    reg.sent.add(hash);
    reg.fresh.push({ id, path: file, hash, code: reg.codes.get(hash), inputs, fileSettings });
  } else reg.fresh.push({ id, path: file, hash, inputs, fileSettings });
  const env = pluginEnvJson(deps.serviceEnv, reg.codes.get(hash), settings.service_env, settings.env);
  // Names only: which of the service's variables this plugin sees (its operator's own `env` besides).
  deps.log(
    'info',
    `plugin '${id}' receives ${env.received.length ? `these variables of the service's environment: ${env.received.join(', ')}` : "no variable of the service's environment"}`,
    { plugin: id, env: env.received, own_env: Object.keys(settings.env) },
  );
  return { ...base, state: 'ready', settings, configJson: JSON.stringify(settings.config), envJson: env.json };
}

/** Replaces the operator's entries and settles every bundled plugin again with them (no rebundling). */
export function resettle(reg: Registry, entries: ConfiguredPlugin[]): void {
  reg.configured.clear();
  for (const e of entries) reg.configured.set(e.id, e);
  for (const [id, p] of reg.plugins) {
    if (p.hash && p.inputs && p.fileSettings !== undefined)
      reg.plugins.set(id, settle(reg, id, p.path, p.hash, p.inputs, p.fileSettings));
  }
  reg.fresh = [];
}

export function listPlugins(reg: Registry): PluginInfo[] {
  return [...reg.plugins.values()].map(
    ({ configJson: _j, envJson: _e, inputs: _i, fileSettings: _f, ...info }) => info,
  );
}

function safe<T>(fn: () => T): T | Record<string, never> {
  try {
    return fn();
  } catch {
    return {};
  }
}
