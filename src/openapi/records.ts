// Schemas of what the API answers (the envelope's `data`): the records the domain returns, for the API reference.

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] });

export const relayerRecord = {
  type: 'object',
  required: ['id', 'name', 'network', 'network_type', 'paused', 'address', 'notification_id'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    network: { type: 'string' },
    network_type: { enum: ['evm', 'solana', 'stellar'] },
    paused: { type: 'boolean' },
    address: { type: 'string' },
    notification_id: nullable({ type: 'string' }),
  },
} as const;

/** Amounts are decimal strings (exact u128/int64); network-specific fields appear only for their network. */
export const transactionRecord = {
  type: 'object',
  required: ['id', 'relayer_id', 'status', 'created_at'],
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    relayer_id: { type: 'string' },
    status: { enum: ['pending', 'sent', 'submitted', 'mined', 'confirmed', 'failed', 'expired', 'canceled'] },
    status_reason: nullable({ type: 'string' }),
    created_at: timestamp,
    sent_at: nullable(timestamp),
    confirmed_at: nullable(timestamp),
    hash: nullable({ type: 'string' }),
    from: { type: 'string' },
    to: nullable({ type: 'string' }),
    data: nullable({ type: 'string' }),
    value: { type: 'string', pattern: '^\\d+$' },
    gas_limit: { anyOf: [{ type: 'integer' }, { type: 'string' }, { type: 'null' }] },
    gas_price: nullable({ type: 'string' }),
    max_fee_per_gas: nullable({ type: 'string' }),
    max_priority_fee_per_gas: nullable({ type: 'string' }),
    nonce: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    speed: nullable({ type: 'string' }),
  },
} as const;

export const notificationRecord = {
  type: 'object',
  required: ['id', 'type', 'url', 'has_signing_key'],
  properties: {
    id: { type: 'string' },
    type: { enum: ['webhook'] },
    url: { type: 'string' },
    has_signing_key: { type: 'boolean', description: 'the key itself is never returned' },
  },
} as const;

export const deliveryRecord = {
  type: 'object',
  required: ['id', 'event', 'transaction_id', 'status', 'attempts', 'last_error', 'next_attempt_at', 'created_at', 'delivered_at'],
  properties: {
    id: { type: 'string' },
    event: { type: 'string' },
    transaction_id: nullable({ type: 'string' }),
    status: { enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer', minimum: 0 },
    last_error: nullable({ type: 'string' }),
    next_attempt_at: nullable(timestamp),
    created_at: timestamp,
    delivered_at: nullable(timestamp),
  },
} as const;

export const pluginRecord = {
  type: 'object',
  required: ['id', 'path', 'state', 'error', 'settings'],
  properties: {
    id: { type: 'string' },
    path: { type: 'string' },
    state: { enum: ['ready', 'error'] },
    error: nullable({ type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } }),
    settings: { type: 'object', description: 'the plugin settings; `config` values stay private, only `config_keys` are listed' },
  },
} as const;

/** Any JSON value: a plugin's result. */
export const anyValue = {} as const;
