// A plugin's settings: the defaults a plugin file may override, and the validation of a file's or an operator's entry.
import { OPERATOR_SETTINGS, type OperatorSettings, type PluginSettings } from '../protocol.ts';

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
  service_env: [],
}) as Omit<PluginSettings, keyof OperatorSettings>;

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

/** Names of the service's variables the operator gives a plugin (`service_env`). */
function checkNames(raw: unknown, where: string): string[] {
  if (!Array.isArray(raw) || raw.length > 256 || !raw.every((n) => typeof n === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(n))) {
    throw new Error(`${where} must be an array of at most 256 variable names (letters, digits, underscores)`);
  }
  return [...new Set(raw as string[])];
}

/** Validates settings; the operator-only ones are taken from the config entry only (`operator`), never from a file. */
export function checkSettings(raw: unknown, where: string, operator = false): Partial<PluginSettings> {
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
  if (operator && s.service_env !== undefined) out.service_env = checkNames(s.service_env, `${where}.service_env`);
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
