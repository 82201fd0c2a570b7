// A plugin's settings as JSON Schema properties, declared once for the three places that check them: the API's
// PATCH /api/v1/plugins/{id} (src/api/plugins/schemas.ts), the config file's plugin entry (src/config/schema.ts) and
// the runtime (runtime/process/settings.ts: a plugin file's `settings`, an entry as the runtime applies it). Plain
// data: each process compiles it with its own ajv and words a failure its own way; `x-expect` is the phrase each uses
// for a field ("timeout must be a number of seconds in (0, 3600]"). test/plugins/plugin-settings-agree.test.ts holds
// the three together.

const flag = { type: 'boolean', 'x-expect': 'a boolean' } as const;

/** What a plugin file may set for itself; a config entry (and the API, for some) overrides it field by field. */
export const PLUGIN_SETTING_PROPERTIES = {
  // The reference's whole seconds, and fractions of ours.
  timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600, 'x-expect': 'a number of seconds in (0, 3600]' },
  emit_logs: flag,
  emit_traces: flag,
  raw_response: flag,
  allow_get_invocation: flag,
  forward_logs: flag,
  memory_mb: { type: 'integer', minimum: 8, maximum: 1024, 'x-expect': 'an integer in [8, 1024]' },
  config: { type: 'object', 'x-expect': 'an object' },
} as const;

/**
 * The operator's only (the config entry; the four limits' defaults also from the environment): they protect the
 * other plugins or grant a capability, so a plugin file's are ignored. The runtime checks besides what a schema does
 * not say: that each origin is one, and the env's names and total size (runtime/process/settings.ts).
 */
export const OPERATOR_SETTING_PROPERTIES = {
  max_concurrent_calls: { type: 'integer', minimum: 1, maximum: 100000, 'x-expect': 'an integer in [1, 100000]' },
  max_queued_calls: { type: 'integer', minimum: 0, maximum: 1000000, 'x-expect': 'an integer in [0, 1000000]' },
  kv_max_keys: { type: 'integer', minimum: 1, maximum: 100000000, 'x-expect': 'an integer in [1, 100000000]' },
  kv_max_bytes: {
    type: 'integer',
    minimum: 1024,
    maximum: 1099511627776,
    'x-expect': 'an integer in [1024, 1099511627776] (bytes)',
  },
  // The plugin's egress policy: origins its fetch may reach.
  allowed_origins: {
    type: 'array',
    maxItems: 256,
    items: { type: 'string', minLength: 1, maxLength: 2048 },
    'x-expect': 'an array of at most 256 origins such as "https://api.example.com"',
  },
  // The plugin's process.env (the reference's plugins read their settings from the environment).
  env: {
    type: 'object',
    maxProperties: 256,
    additionalProperties: { type: 'string', maxLength: 16384 },
    'x-expect': 'an object of at most 256 string values (each at most 16 KiB)',
  },
  // Names of the service's variables the plugin receives besides those its code names (docs/plugins.md).
  service_env: {
    type: 'array',
    maxItems: 256,
    uniqueItems: true,
    items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
    'x-expect': 'an array of at most 256 distinct variable names (letters, digits, underscores)',
  },
} as const;
