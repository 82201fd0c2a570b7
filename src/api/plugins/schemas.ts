// JSON Schemas of the plugin routes. A malformed plugin id is simply not found (404), never a 400.
export const pluginIdParams = {
  type: 'object',
  required: ['plugin_id'],
  properties: {
    plugin_id: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const maybe = (schema: object, expect: string) => ({ 'x-expect': `${expect}, or null`, anyOf: [schema, { type: 'null' }] });

/**
 * The reference's UpdatePluginRequest: every field optional (`{}` changes nothing, as there); null puts it back to the
 * config file's (config: null clears it).
 */
export const updatePluginBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // As the config file's entry and the plugin file take it (src/config/schema.ts, runtime/process/settings.ts): the
    // reference's whole seconds, and fractions of ours (test/plugins/plugin-settings-agree.test.ts holds the three together).
    timeout: maybe({ type: 'number', exclusiveMinimum: 0, maximum: 3600 }, 'a number of seconds in (0, 3600]'),
    emit_logs: maybe({ type: 'boolean' }, 'a boolean'),
    emit_traces: maybe({ type: 'boolean' }, 'a boolean'),
    raw_response: maybe({ type: 'boolean' }, 'a boolean'),
    allow_get_invocation: maybe({ type: 'boolean' }, 'a boolean'),
    forward_logs: maybe({ type: 'boolean' }, 'a boolean'),
    config: maybe({ type: 'object' }, 'an object'),
  },
} as const;
