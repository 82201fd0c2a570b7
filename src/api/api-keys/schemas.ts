// JSON Schemas of the /api/v1/api-keys routes (the reference's ApiKeyRequest).
import { PERMISSION_PATTERN } from '../../domain/api-keys/permissions.ts';

export const apiKeyIdParams = { type: 'object', required: ['api_key_id'], properties: { api_key_id: { type: 'string', minLength: 1, maxLength: 128 } } } as const;

export const createApiKeyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'permissions'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    permissions: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'string', pattern: PERMISSION_PATTERN, 'x-expect': "'<area>:<id|all>:<read|execute|manage>' (e.g. 'relayer:all:execute'; '*' for any part)" },
    },
    allowed_origins: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 500 } },
  },
} as const;
