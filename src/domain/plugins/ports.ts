// What the plugin use cases need: storage for the operator's changes, the plugin runtime that runs the calls
// (src/plugin-host/client.ts), and where each finished call is reported (metrics). Types only.
import type { PluginConfig } from '../../config/config.ts';

/** A plugin's settings changed through PATCH /api/v1/plugins/{id}: only the changed fields, applied over the config's. */
export interface PluginOverride {
  plugin_id: string;
  settings: Record<string, unknown>;
  updated_at: string;
}

export interface PluginOverridesRepo {
  all(): Promise<PluginOverride[]>;
  /** Inserts or replaces the plugin's override. */
  put(override: PluginOverride): Promise<void>;
}

/** An operator's entry for a plugin: the config file's, with the changes stored through the API over it. */
export type ConfiguredPlugin = PluginConfig;

/** A plugin's effective settings: every field of an entry, resolved (plugin file `settings`, the operator's entry over them). */
export type PluginSettings = Required<Omit<PluginConfig, 'id' | 'path'>>;

/** What the runtime reports about one plugin (GET /api/v1/plugins). */
export interface PluginInfo {
  id: string;
  path: string;
  state: 'ready' | 'error';
  error?: { code: string; message: string };
  /** sha256 of the bundled code (absent: not loadable). */
  hash?: string;
  settings: PluginSettings;
}

/** The call as the plugin sees it, minus `api`/`kv`/`config`: the route builds it, the runtime hands it over as JSON. */
export interface PluginCallInput {
  params: unknown;
  headers: Record<string, string[]>;
  route: string;
  method: string;
  query: Record<string, string[]>;
  requestId: string;
}

export interface PluginCallResult {
  /** The plugin's result as JSON text, serialized and size-checked inside the sandbox. */
  result: string;
  /** `raw_response`: answer the result itself, without the envelope. */
  raw: boolean;
  metadata?: { logs?: Array<{ level: string; message: string }>; traces?: unknown[] };
}

/** The plugin runtime as the use cases drive it. */
export interface PluginRuntime {
  /**
   * Runs one plugin call in the sandbox. Rejects with a PluginError for the plugin's own failures and limits, an
   * AppError for PLUGIN_NOT_FOUND, METHOD_NOT_ALLOWED, PLUGIN_BUSY and RUNTIME_UNAVAILABLE.
   */
  call(pluginId: string, input: PluginCallInput): Promise<PluginCallResult>;
  /** The plugins the runtime last reported. */
  plugins(): PluginInfo[];
  /** New operator entries: applied at once; resolves once the runtime has settled its registry with them. */
  configure(plugins: ConfiguredPlugin[]): Promise<void>;
}

/** How a finished plugin call went, as the metrics count it. */
export type PluginCallOutcome = 'ok' | 'plugin_error' | 'timeout' | 'memory' | 'overload';

/** Where each finished call is reported (metrics). */
export interface PluginCallObserver {
  pluginCall(pluginId: string, outcome: PluginCallOutcome, seconds: number): void;
}
