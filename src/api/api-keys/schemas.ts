// JSON Schemas of the /api/v1/api-keys routes (the reference's ApiKeyRequest, plus an optional per-key rate limit).

export const apiKeyIdParams = {
  type: 'object',
  required: ['api_key_id'],
  properties: { api_key_id: { type: 'string', minLength: 1, maxLength: 128 } },
} as const;

const perSecond = { type: 'integer', minimum: 1, maximum: 1_000_000 } as const;

/** This key's own bucket instead of RATE_LIMIT_RPS / RATE_LIMIT_BURST; never above its creator's. */
const rateLimitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['requests_per_second', 'burst_size'],
  properties: { requests_per_second: perSecond, burst_size: perSecond },
  description:
    "This key's own rate limit on the relayer and plugin routes (burst_size at least requests_per_second); absent: the service's default, or the creating key's own limit.",
} as const;

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
      // The reference stores any string: one Relaybox does not understand is kept and grants nothing (docs/security.md).
      items: {
        type: 'string',
        minLength: 1,
        maxLength: 300,
        description: "'<area>:<id|all>:<read|execute|manage>' (e.g. 'relayer:all:execute'; '*' for any part)",
      },
    },
    allowed_origins: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 500 } },
    rate_limit: rateLimitSchema,
  },
} as const;
