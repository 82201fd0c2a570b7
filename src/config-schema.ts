// JSON Schema of the config file (networks, signers, relayers, notifications, plugins).
const id = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const speedTable = {
  type: 'object',
  additionalProperties: false,
  required: ['safeLow', 'average', 'fast', 'fastest'],
  properties: Object.fromEntries(['safeLow', 'average', 'fast', 'fastest'].map((s) => [s, { type: 'string', pattern: '^\\d{1,39}$' }])),
} as const;

export const configFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['networks', 'signers', 'relayers'],
  properties: {
    $comment: { type: 'string' },
    networks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type'],
        properties: {
          id,
          type: { enum: ['evm', 'solana', 'stellar'] },
          chain_id: { type: 'integer', minimum: 1 },
          fees: {
            type: 'object',
            additionalProperties: false,
            properties: { gas_price: speedTable, max_priority_fee_per_gas: speedTable },
          },
          passphrase: { type: 'string', minLength: 1 },
        },
        allOf: [
          { if: { properties: { type: { const: 'evm' } } }, then: { required: ['chain_id', 'fees'] } },
          { if: { properties: { type: { const: 'stellar' } } }, then: { required: ['passphrase'] } },
        ],
      },
    },
    signers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type'],
        properties: {
          id,
          type: { const: 'local' },
          private_key: { type: 'string', minLength: 1 },
          private_key_env: { type: 'string', pattern: '^[A-Z_][A-Z0-9_]*$' },
          address: { type: 'string', minLength: 1 },
          development: { type: 'boolean' },
        },
      },
    },
    relayers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'network', 'signer_id'],
        properties: {
          id,
          name: { type: 'string', minLength: 1, maxLength: 200 },
          network: id,
          signer_id: id,
          paused: { type: 'boolean' },
          notification_id: { anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' }, { type: 'null' }] },
          initial_nonce: { type: 'integer', minimum: 0 },
        },
      },
    },
    notifications: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'url'],
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' },
          type: { const: 'webhook' },
          url: { type: 'string', format: 'uri', pattern: '^https?://' },
          signing_key: { type: 'string', minLength: 32 },
          signing_key_env: { type: 'string', pattern: '^[A-Z_][A-Z0-9_]*$' },
        },
        not: { required: ['signing_key', 'signing_key_env'] },
      },
    },
    plugins: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id,
          path: { type: 'string', minLength: 1 },
          timeout: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
          emit_logs: { type: 'boolean' },
          emit_traces: { type: 'boolean' },
          raw_response: { type: 'boolean' },
          allow_get_invocation: { type: 'boolean' },
          forward_logs: { type: 'boolean' },
          memory_mb: { type: 'integer', minimum: 8, maximum: 1024 },
          config: { type: 'object' },
          max_concurrent_calls: { type: 'integer', minimum: 1, maximum: 100000 },
          max_queued_calls: { type: 'integer', minimum: 0, maximum: 1000000 },
          kv_max_keys: { type: 'integer', minimum: 1, maximum: 100000000 },
          kv_max_bytes: { type: 'integer', minimum: 1024, maximum: 1099511627776 },
        },
      },
    },
  },
} as const;
