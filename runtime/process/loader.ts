// The plugin registry: discovers plugins in PLUGINS_DIR (and config `path` entries), bundles and inspects them,
// and rebuilds on any change in the directory (fs.watch plus a slow poll as a safety net).
import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { bundlePlugin, unchanged } from './bundler.ts';
import {
  OPERATOR_SETTINGS,
  PLUGIN_ID,
  type CachedPlugin,
  type ConfiguredPlugin,
  type ErrorData,
  type InspectResult,
  type InspectTask,
  type OperatorSettings,
  type PluginDefaults,
  type PluginInfo,
  type PluginSettings,
  type Quarantined,
} from '../protocol.ts';

/** What a plugin file may set for itself. The operator-only settings come from the config entry or the environment. */
export const DEFAULT_SETTINGS = Object.freeze({
  timeout: 300,
  memory_mb: 64,
  emit_logs: false,
  emit_traces: false,
  allow_get_invocation: false,
  raw_response: false,
  forward_logs: false,
  config: {},
  allowed_origins: [],
  env: {},
}) as Omit<PluginSettings, keyof OperatorSettings>;

const ENTRY_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];
const INSPECT_TIMEOUT_MS = 5000;

export interface LoadedPlugin extends PluginInfo {
  configJson: string;
  /** The bundle's input files and their stamps: while unchanged, the plugin is not bundled again. */
  inputs?: Array<[string, string]>;
  /** The plugin file's own `settings` as inspected (JSON). */
  fileSettings?: string;
}

export interface Loader {
  start(): Promise<void>;
  get(id: string): LoadedPlugin | undefined;
  code(hash: string): string | undefined;
  list(): PluginInfo[];
  /** Replaces the operator's entries and settles every loaded plugin again with them (no rebundling). */
  reconfigure(entries: ConfiguredPlugin[]): void;
  close(): void;
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
}

/** Finds `<id>.ts|.js` files and `<id>/index.ts|.js` folders; warns once about names that are not valid ids. */
function discover(dir: string, warned: Set<string>, log: LoaderDeps['log']): Map<string, string> {
  const found = new Map<string, string>();
  let entries: import('node:fs').Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    let id: string;
    let file: string;
    if (entry.isDirectory()) {
      const index = ENTRY_EXTENSIONS.map((ext) => path.join(dir, entry.name, `index${ext}`)).find((f) => existsSync(f));
      if (!index) continue;
      id = entry.name;
      file = index;
    } else {
      const ext = ENTRY_EXTENSIONS.find((e) => entry.name.endsWith(e));
      if (!ext || entry.name.endsWith('.d.ts')) continue;
      id = entry.name.slice(0, -ext.length);
      file = path.join(dir, entry.name);
    }
    if (!PLUGIN_ID.test(id)) {
      if (!warned.has(entry.name)) log('warn', `ignoring '${entry.name}' in the plugins directory: a plugin id must match [A-Za-z0-9_-]{1,64}`, { name: entry.name });
      warned.add(entry.name);
      continue;
    }
    // `.ts` wins over `.js` for the same id (the first extension in ENTRY_EXTENSIONS order).
    const existing = found.get(id);
    if (existing && ENTRY_EXTENSIONS.indexOf(path.extname(existing)) <= ENTRY_EXTENSIONS.indexOf(path.extname(file))) continue;
    found.set(id, file);
  }
  return found;
}

/**
 * A discovered plugin whose file, or whose folder, holds a configured plugin's file is that plugin's, not one of its
 * own: the reference's examples configure `channel/index.ts` as `channels`, and the folder `channel` must not be
 * listed as a second plugin. A configured id is always kept.
 */
function withoutClaimed(found: Map<string, string>, dir: string, configured: Iterable<ConfiguredPlugin>): Map<string, string> {
  const root = path.resolve(dir);
  const claimed: string[] = [];
  const ids = new Set<string>();
  for (const e of configured) {
    ids.add(e.id);
    if (e.path) claimed.push(path.resolve(root, e.path));
  }
  for (const [id, file] of found) {
    if (ids.has(id)) continue;
    const folder = path.dirname(file) === root ? undefined : path.dirname(file);
    if (claimed.some((c) => c === file || (folder !== undefined && c.startsWith(folder + path.sep)))) found.delete(id);
  }
  return found;
}

/** The egress policy: absolute http(s) origins (a path, query or credentials would suggest a finer rule than we apply). */
function checkOrigins(raw: unknown, where: string): string[] {
  if (!Array.isArray(raw)) throw new Error(`${where} must be an array of origins such as "https://api.example.com"`);
  return raw.map((entry, i) => {
    let u: URL | undefined;
    try {
      u = typeof entry === 'string' ? new URL(entry) : undefined;
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
      throw new Error(`${where}[${i}] must be an http(s) origin such as "https://api.example.com" (scheme, host and optional port; no path)`);
    }
    return u.origin;
  });
}

/** A plugin's process.env: names and string values, as an environment has (at most 256 entries, 64 KiB). */
function checkEnv(raw: unknown, where: string): Record<string, string> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where} must be an object of string values`);
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > 256 || JSON.stringify(raw).length > 64 * 1024) throw new Error(`${where} must hold at most 256 entries and 64 KiB`);
  for (const [k, v] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k) || typeof v !== 'string') throw new Error(`${where}.${k} must be a string (names: letters, digits, underscores)`);
  }
  return { ...(raw as Record<string, string>) };
}

/** Validates settings; the operator-only ones are taken from the config entry only (`operator`), never from a file. */
function checkSettings(raw: unknown, where: string, operator = false): Partial<PluginSettings> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where} must be an object`);
  const s = raw as Record<string, unknown>;
  const out: Partial<PluginSettings> = {};
  if (operator) {
    for (const key of OPERATOR_SETTINGS) {
      if (s[key] === undefined) continue;
      const min = key === 'max_queued_calls' ? 0 : 1;
      if (!Number.isSafeInteger(s[key]) || (s[key] as number) < min) throw new Error(`${where}.${key} must be an integer >= ${min}`);
      out[key] = s[key] as number;
    }
  }
  if (operator && s.allowed_origins !== undefined) out.allowed_origins = checkOrigins(s.allowed_origins, `${where}.allowed_origins`);
  if (operator && s.env !== undefined) out.env = checkEnv(s.env, `${where}.env`);
  for (const key of ['emit_logs', 'emit_traces', 'allow_get_invocation', 'raw_response', 'forward_logs'] as const) {
    if (s[key] === undefined) continue;
    if (typeof s[key] !== 'boolean') throw new Error(`${where}.${key} must be a boolean`);
    out[key] = s[key];
  }
  if (s.timeout !== undefined) {
    if (typeof s.timeout !== 'number' || !(s.timeout > 0) || s.timeout > 3600) throw new Error(`${where}.timeout must be a number of seconds in (0, 3600]`);
    out.timeout = s.timeout;
  }
  if (s.memory_mb !== undefined) {
    if (!Number.isInteger(s.memory_mb) || (s.memory_mb as number) < 8 || (s.memory_mb as number) > 1024) throw new Error(`${where}.memory_mb must be an integer in [8, 1024]`);
    out.memory_mb = s.memory_mb as number;
  }
  if (s.config !== undefined) {
    if (typeof s.config !== 'object' || s.config === null || Array.isArray(s.config)) throw new Error(`${where}.config must be an object`);
    out.config = s.config as Record<string, unknown>;
  }
  return out;
}

export function createLoader(deps: LoaderDeps): Loader {
  const plugins = new Map<string, LoadedPlugin>();
  const codes = new Map<string, string>();
  const warned = new Set<string>();
  const configured = new Map(deps.configured.map((p) => [p.id, p]));
  let watcher: FSWatcher | undefined;
  let poll: NodeJS.Timeout | undefined;
  let scanning: Promise<void> | undefined;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;
  let signature = '';

  const configOverrides = (id: string): Partial<PluginSettings> => {
    const entry = configured.get(id);
    if (!entry) return {};
    const { id: _id, path: _path, ...rest } = entry;
    return checkSettings(rest, `plugins[${id}]`, true);
  };
  const seeds = new Map(deps.cache.map((c) => [c.id, c]));
  for (const c of deps.cache) if (c.code !== undefined) codes.set(c.hash, c.code);
  /** Hashes whose code the HTTP process already holds (it sent them): cache messages omit their code. */
  const sent = new Set(deps.cache.map((c) => c.hash));
  let fresh: CachedPlugin[] = [];

  /** A bundle that loaded (or was refused) on its own merits: its effective settings, quarantine and state. */
  function settle(id: string, file: string, hash: string, inputs: Array<[string, string]>, fileSettings: string): LoadedPlugin {
    const base = { id, path: file, hash, inputs, fileSettings };
    let settings: PluginSettings;
    try {
      const overrides = configOverrides(id);
      const own = checkSettings(JSON.parse(fileSettings), 'settings');
      for (const key of [...OPERATOR_SETTINGS, 'allowed_origins', 'env'] as const) {
        const set = key === 'allowed_origins' || key === 'env' ? (JSON.parse(fileSettings) as Record<string, unknown> | null)?.[key] : own[key];
        if (set !== undefined) deps.log('warn', `plugin '${id}': settings.${key} is set by the operator (config file or environment), not by the plugin; ignored`, { plugin: id });
        delete own[key];
      }
      settings = { ...DEFAULT_SETTINGS, ...deps.defaults, ...own, ...overrides };
    } catch (err) {
      return { ...base, hash: undefined, state: 'error', error: { code: 'INVALID_SETTINGS', message: (err as Error).message, status: 500 }, settings: fallbackSettings(id), configJson: '{}' };
    }
    const quarantined = deps.quarantine[id];
    if (quarantined?.hash === hash) {
      return { ...base, hash: undefined, state: 'error', error: { code: 'PLUGIN_QUARANTINED', message: quarantined.reason, status: 503 }, settings, configJson: '{}' };
    }
    if (!sent.has(hash)) {
      sent.add(hash);
      fresh.push({ id, path: file, hash, code: codes.get(hash), inputs, fileSettings });
    } else fresh.push({ id, path: file, hash, inputs, fileSettings });
    return { ...base, state: 'ready', settings, configJson: JSON.stringify(settings.config) };
  }

  const fallbackSettings = (id: string): PluginSettings => ({ ...DEFAULT_SETTINGS, ...deps.defaults, ...safe(() => configOverrides(id)) });

  async function load(id: string, file: string): Promise<LoadedPlugin> {
    const previous = plugins.get(id);
    if (previous?.path === file && previous.inputs && unchanged(previous.inputs)) return previous;
    const seed = seeds.get(id);
    seeds.delete(id);
    if (seed && seed.path === file && codes.has(seed.hash) && unchanged(seed.inputs)) return settle(id, file, seed.hash, seed.inputs, seed.fileSettings);
    const fail = (error: ErrorData, settings = fallbackSettings(id)): LoadedPlugin => ({ id, path: file, state: 'error', error, settings, configJson: JSON.stringify(settings.config) });
    const bundled = await bundlePlugin(file, deps.pluginsDir);
    if (!bundled.ok) return fail({ code: 'COMPILE_ERROR', message: bundled.message, status: 500 });
    if (previous?.hash === bundled.hash && previous.fileSettings !== undefined) {
      previous.inputs = bundled.inputs;
      return previous;
    }
    codes.set(bundled.hash, bundled.code);
    let overrides: Partial<PluginSettings>;
    try {
      overrides = configOverrides(id);
    } catch (err) {
      return fail({ code: 'INVALID_SETTINGS', message: (err as Error).message, status: 500 }, { ...DEFAULT_SETTINGS, ...deps.defaults });
    }
    if (deps.quarantine[id]?.hash === bundled.hash) return settle(id, file, bundled.hash, bundled.inputs, 'null');
    const inspected = await deps.inspect({
      kind: 'inspect',
      plugin: id,
      hash: bundled.hash,
      memoryMb: overrides.memory_mb ?? DEFAULT_SETTINGS.memory_mb,
      timeoutMs: INSPECT_TIMEOUT_MS,
    });
    if (!inspected.ok) return fail(inspected.error);
    if (!inspected.hasHandler) return fail({ code: 'LOAD_ERROR', message: 'Plugin does not export a handler function (export async function handler(context) { … })', status: 500 });
    return settle(id, file, bundled.hash, bundled.inputs, inspected.settings);
  }

  async function scanOnce(): Promise<void> {
    const files = withoutClaimed(discover(deps.pluginsDir, warned, deps.log), deps.pluginsDir, configured.values());
    for (const entry of configured.values()) {
      if (entry.path) files.set(entry.id, path.resolve(deps.pluginsDir, entry.path));
    }
    const next = new Map<string, LoadedPlugin>();
    await Promise.all(
      [...files].map(async ([id, file]) => {
        const loaded = await load(id, file);
        next.set(id, loaded);
      }),
    );
    let changed = next.size !== plugins.size;
    for (const [id, p] of next) {
      const before = plugins.get(id);
      if (before !== p) {
        changed = true;
        if (p.state === 'error') deps.log('warn', `plugin '${id}' is not callable: ${p.error?.message}`, { plugin: id, code: p.error?.code });
        else deps.log('info', `plugin '${id}' loaded`, { plugin: id, hash: p.hash, path: p.path });
      }
    }
    for (const id of plugins.keys()) if (!next.has(id)) deps.log('info', `plugin '${id}' removed`, { plugin: id });
    plugins.clear();
    for (const [id, p] of next) plugins.set(id, p);
    const live = new Set([...plugins.values()].map((p) => p.hash));
    for (const hash of codes.keys()) if (!live.has(hash)) codes.delete(hash);
    seeds.clear();
    if (fresh.length > 0) {
      deps.onCache(fresh);
      fresh = [];
    }
    if (changed) deps.onChange(list());
  }

  function scan(): Promise<void> {
    if (scanning) {
      again = true;
      return scanning;
    }
    scanning = (async () => {
      try {
        do {
          again = false;
          await scanOnce();
        } while (again);
      } catch (err) {
        deps.log('error', `plugin scan failed: ${(err as Error).message}`);
      } finally {
        scanning = undefined;
      }
    })();
    return scanning;
  }

  const schedule = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => void scan(), 40);
  };

  /** Cheap change detector for the poll: names, sizes and mtimes of the top two levels. */
  function currentSignature(): string {
    const parts: string[] = [];
    const walk = (dir: string, depth: number) => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        const full = path.join(dir, name);
        try {
          const st = statSync(full);
          parts.push(`${full}:${st.size}:${st.mtimeMs}`);
          if (st.isDirectory() && depth < 2) walk(full, depth + 1);
        } catch {
          // vanished meanwhile
        }
      }
    };
    walk(deps.pluginsDir, 0);
    return parts.join('|');
  }

  function list(): PluginInfo[] {
    return [...plugins.values()].map(({ configJson: _j, inputs: _i, fileSettings: _f, ...info }) => info);
  }

  function reconfigure(entries: ConfiguredPlugin[]): void {
    configured.clear();
    for (const e of entries) configured.set(e.id, e);
    for (const [id, p] of plugins) {
      if (p.hash && p.inputs && p.fileSettings !== undefined) plugins.set(id, settle(id, p.path, p.hash, p.inputs, p.fileSettings));
    }
    fresh = [];
    deps.onChange(list());
    // An entry may name a new path, or settle a plugin that failed on its settings: scan too.
    schedule();
  }

  return {
    reconfigure,
    async start() {
      signature = currentSignature();
      await scan();
      try {
        watcher = watch(deps.pluginsDir, { recursive: true }, (_event, name) => {
          if (name && String(name).split(path.sep).includes('node_modules')) return;
          schedule();
        });
        watcher.on('error', (err) => deps.log('warn', `watching the plugins directory failed: ${err.message}`));
      } catch (err) {
        deps.log('warn', `cannot watch ${deps.pluginsDir}: ${(err as Error).message}; polling only`);
      }
      // fs.watch can miss events (editors replacing files, network file systems): poll as a safety net.
      poll = setInterval(() => {
        const now = currentSignature();
        if (now !== signature) {
          signature = now;
          schedule();
        }
      }, 1000);
      poll.unref();
    },
    get: (id) => plugins.get(id),
    code: (hash) => codes.get(hash),
    list,
    close() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(debounce);
    },
  };
}

function safe<T>(fn: () => T): T | Record<string, never> {
  try {
    return fn();
  } catch {
    return {};
  }
}
