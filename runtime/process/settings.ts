// A plugin's settings: the defaults a plugin file may override, and the validation of a file's or an operator's entry.
import { Ajv, type ValidateFunction } from 'ajv';
import { OPERATOR_SETTING_PROPERTIES, PLUGIN_SETTING_PROPERTIES } from '../common/plugin-settings.ts';
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

// The schema the API and the config file compile too (runtime/common/plugin-settings.ts), compiled once here; what
// a schema does not say (an origin is one; the env's names and total size) is checked after it.
const ajv = new Ajv({ strict: true, allErrors: false });
ajv.addVocabulary(['x-expect']);
const PROPERTIES: Record<string, { 'x-expect': string }> = {
  ...PLUGIN_SETTING_PROPERTIES,
  ...OPERATOR_SETTING_PROPERTIES,
};
/** A plugin file's own settings: the operator's are not its to set (the loader ignores them, with a warning). */
const fileSettings = ajv.compile({ type: 'object', properties: PLUGIN_SETTING_PROPERTIES });
/** An operator's entry: the plugin's settings and the operator's. */
const entrySettings = ajv.compile({ type: 'object', properties: PROPERTIES });

/** The first failure in one sentence: the field and the schema's phrase for it. */
function reason(validate: ValidateFunction, where: string): string {
  const key = (validate.errors?.[0]?.instancePath ?? '').split('/')[1];
  return key && PROPERTIES[key] ? `${where}.${key} must be ${PROPERTIES[key]['x-expect']}` : `${where} is invalid`;
}

/** The egress policy: absolute http(s) origins (a path, query or credentials would suggest a finer rule than we apply). */
function checkOrigins(raw: string[], where: string): string[] {
  return raw.map((entry, i) => {
    let u: URL | undefined;
    try {
      u = new URL(entry);
    } catch {
      u = undefined;
    }
    if (
      !u ||
      (u.protocol !== 'http:' && u.protocol !== 'https:') ||
      u.username ||
      u.password ||
      (u.pathname !== '/' && u.pathname !== '') ||
      u.search ||
      u.hash
    ) {
      throw new Error(
        `${where}[${i}] must be an http(s) origin such as "https://api.example.com" (scheme, host and optional port; no path)`,
      );
    }
    return u.origin;
  });
}

/** A plugin's process.env: names as an environment has, 64 KiB in all (the schema bounds the count and the values). */
function checkEnv(raw: Record<string, string>, where: string): Record<string, string> {
  if (JSON.stringify(raw).length > 64 * 1024) throw new Error(`${where} must hold at most 256 entries and 64 KiB`);
  for (const k of Object.keys(raw)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k))
      throw new Error(`${where}.${k} must be a string (names: letters, digits, underscores)`);
  }
  return { ...raw };
}

/** Validates settings; the operator-only ones are taken from the config entry only (`operator`), never from a file. */
export function checkSettings(raw: unknown, where: string, operator = false): Partial<PluginSettings> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where} must be an object`);
  const validate = operator ? entrySettings : fileSettings;
  if (!validate(raw)) throw new Error(reason(validate, where));
  const s = raw as Partial<PluginSettings>;
  const out: Partial<PluginSettings> = {};
  if (operator) {
    for (const key of OPERATOR_SETTINGS) if (s[key] !== undefined) out[key] = s[key];
    if (s.allowed_origins !== undefined)
      out.allowed_origins = checkOrigins(s.allowed_origins, `${where}.allowed_origins`);
    if (s.env !== undefined) out.env = checkEnv(s.env, `${where}.env`);
    if (s.service_env !== undefined) out.service_env = [...s.service_env];
  }
  for (const key of ['emit_logs', 'emit_traces', 'allow_get_invocation', 'raw_response', 'forward_logs'] as const)
    if (s[key] !== undefined) out[key] = s[key];
  for (const key of ['timeout', 'memory_mb'] as const) if (s[key] !== undefined) out[key] = s[key];
  if (s.config !== undefined) out.config = s.config;
  return out;
}
