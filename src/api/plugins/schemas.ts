// JSON Schemas of the plugin routes. A malformed plugin id is simply not found (404), never a 400.
import { PLUGIN_SETTING_PROPERTIES } from '../../../runtime/common/plugin-settings.ts';

export const pluginIdParams = {
  type: 'object',
  required: ['plugin_id'],
  properties: {
    plugin_id: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

// The settings' schema is the one the config file and the runtime compile too (runtime/common/plugin-settings.ts).
const S = PLUGIN_SETTING_PROPERTIES;
/** A setting, or null: its phrase moves to the anyOf, which is what the 400 names. */
const maybe = ({ 'x-expect': expect, ...schema }: { 'x-expect': string; type: string }) => ({
  'x-expect': `${expect}, or null`,
  anyOf: [schema, { type: 'null' }],
});

/**
 * The reference's UpdatePluginRequest: every field optional (`{}` changes nothing, as there); null puts it back to the
 * config file's (config: null clears it).
 */
export const updatePluginBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    timeout: maybe(S.timeout),
    emit_logs: maybe(S.emit_logs),
    emit_traces: maybe(S.emit_traces),
    raw_response: maybe(S.raw_response),
    allow_get_invocation: maybe(S.allow_get_invocation),
    forward_logs: maybe(S.forward_logs),
    config: maybe(S.config),
  },
} as const;
