// JSON Schemas of the plugin routes. A malformed plugin id is simply not found (404), never a 400.
export const pluginIdParams = {
  type: 'object',
  required: ['plugin_id'],
  properties: {
    plugin_id: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

export const PLUGIN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
