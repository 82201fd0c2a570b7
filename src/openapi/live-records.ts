// Schemas of the console's in-memory series and recent plugin calls, as the API reference shows them.

/** MinutePoint[] (src/domain/live/minute-series.ts): the last 60 minutes, oldest first. */
export const minutesRecord = {
  type: 'array',
  items: {
    type: 'object',
    required: ['at', 'counts', 'latency'],
    properties: {
      at: { type: 'integer', description: 'start of the minute, Unix ms' },
      counts: { type: 'object', additionalProperties: { type: 'integer' } },
      latency: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['p50', 'p99', 'n'],
          properties: { p50: { type: 'number' }, p99: { type: 'number' }, n: { type: 'integer' } },
        },
      },
    },
  },
} as const;

/** When this instance began counting (its start): the in-memory figures cover no time before it. */
export const sinceRecord = {
  type: 'string',
  format: 'date-time',
  description: 'when this instance started counting (its start): a restart starts the figures empty',
} as const;

/** PluginCallEntry (src/domain/live/plugin-calls.ts). */
export const pluginCallRecord = {
  type: 'object',
  required: ['request_id', 'at', 'outcome', 'duration_ms', 'result', 'error', 'logs', 'traces', 'truncated'],
  properties: {
    request_id: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    outcome: { enum: ['ok', 'plugin_error', 'timeout', 'memory', 'overload'] },
    duration_ms: { type: 'number' },
    result: { type: ['string', 'null'], description: 'the result as JSON text (cut at 4000 characters)' },
    error: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      ],
    },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['level', 'message'],
        properties: { level: { type: 'string' }, message: { type: 'string' } },
      },
    },
    traces: { type: 'array', items: { type: 'string', description: 'one trace as JSON text' } },
    truncated: { type: 'boolean' },
  },
} as const;
