// The envelope's shared pieces for the API reference (mirrors src/http/envelope.ts): failures, pagination, metadata.
import type { ErrorCode } from '../errors.ts';
import type { SchemaObject } from './schema-convert.ts';

// What `error` says for a few codes, so the examples show a precise reason next to the spec text.
const REASONS: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: "missing required field 'url'",
  INVALID_JSON: 'Invalid JSON: Unexpected token } in JSON at position 9',
  PAYLOAD_TOO_LARGE: 'request body exceeds 1 MiB',
  RATE_LIMITED: 'rate limit exceeded; retry in 1 s',
};

export function exampleReason(code: ErrorCode): string | undefined {
  return REASONS[code];
}

export function envelopeComponents(): SchemaObject {
  return {
    RecordFailure: {
      type: 'object',
      description:
        'Failure of a record operation: `message` is the spec text of the code, `error` the precise reason (which field, which rule).',
      required: ['success', 'data', 'error', 'message'],
      properties: {
        success: { const: false },
        data: { type: 'null' },
        error: { type: 'string' },
        message: { type: 'string' },
      },
    },
    PluginRouteFailure: {
      type: 'object',
      description: 'Failure of a plugin route before the plugin runs: the text is in `error`.',
      required: ['success', 'data', 'error'],
      properties: { success: { const: false }, data: { type: 'null' }, error: { type: 'string' } },
    },
    PluginFailure: {
      type: 'object',
      description: "A plugin's own failure, normalized however the plugin raised it.",
      required: ['success', 'data', 'error'],
      properties: {
        success: { const: false },
        data: {
          type: 'object',
          required: ['code', 'details'],
          properties: { code: { type: 'string', examples: ['VALIDATION_FAILED'] }, details: { type: 'object' } },
        },
        error: { type: 'string', examples: ['Validation failed'] },
        metadata: { $ref: '#/components/schemas/Metadata' },
      },
    },
    Pagination: {
      type: 'object',
      required: ['current_page', 'per_page', 'total_items'],
      properties: {
        current_page: { type: 'integer', minimum: 1 },
        per_page: { type: 'integer', minimum: 0 },
        total_items: { type: 'integer', minimum: 0 },
      },
    },
    Metadata: {
      type: 'object',
      description: 'Plugin calls only: `logs` with `emit_logs`, `traces` with `emit_traces`.',
      properties: {
        logs: {
          type: 'array',
          items: {
            type: 'object',
            required: ['level', 'message'],
            properties: { level: { type: 'string', examples: ['log', 'info', 'error'] }, message: { type: 'string' } },
          },
        },
        traces: { type: 'array', items: {} },
      },
    },
  };
}
