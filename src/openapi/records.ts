// Schemas of what the API answers (the envelope's `data`): the records the domain returns, for the API reference.
import { ALL_SIGNER_TYPES } from '../config/signer-schemas.ts';

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] });

const rpcUrlRecord = {
  type: 'object',
  required: ['url', 'weight'],
  properties: { url: { type: 'string' }, weight: { type: 'integer', minimum: 0, maximum: 100 } },
} as const;

export const relayerRecord = {
  type: 'object',
  required: [
    'id',
    'name',
    'network',
    'network_type',
    'paused',
    'signer_id',
    'address',
    'notification_id',
    'policies',
    'custom_rpc_urls',
    'system_disabled',
    'disabled_reason',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    network: { type: 'string' },
    network_type: { enum: ['evm', 'solana', 'stellar'] },
    paused: { type: 'boolean' },
    signer_id: { type: 'string' },
    address: { type: 'string' },
    notification_id: nullable({ type: 'string' }),
    policies: nullable({ type: 'object', description: "the reference's policies for the network type, as given" }),
    custom_rpc_urls: nullable({
      type: 'array',
      items: rpcUrlRecord,
      description: 'path and query masked (they often hold provider keys)',
    }),
    system_disabled: { type: 'boolean' },
    disabled_reason: nullable({
      type: 'object',
      required: ['type', 'details'],
      properties: { type: { type: 'string' }, details: {} },
    }),
    lanes: {
      type: 'array',
      description:
        'our extension, only for a key pool (`signer_ids`): every key of the relayer, as the routing sees it (docs/transactions.md, Key pools)',
      items: {
        type: 'object',
        required: ['address', 'signer_id', 'balance', 'pending', 'max_pending', 'state', 'state_reason'],
        properties: {
          address: { type: 'string' },
          signer_id: { type: 'string' },
          balance: nullable({
            type: 'string',
            description:
              "the key's balance in its network's smallest unit (wei, lamports, stroops), a decimal string; null when the node did not answer",
          }),
          pending: { type: 'integer', minimum: 0 },
          max_pending: { type: 'integer', minimum: 1 },
          state: { enum: ['active', 'fee_cap', 'stuck', 'low_balance', 'signer_failing'] },
          state_reason: nullable({ type: 'string' }),
        },
      },
    },
    funding_signer_id: {
      type: 'string',
      description:
        'our extension, only for a key pool with a funding key: it tops each lane up to policies.lane_target_balance when it falls under policies.lane_min_balance (docs/transactions.md, Funding)',
    },
    funding: {
      type: 'object',
      required: ['address', 'signer_id', 'balance', 'pending', 'max_pending', 'state', 'state_reason'],
      description:
        "our extension, with funding_signer_id: the funding key's own lane, in the shape of a lanes item (its balance, top-ups in flight, state); never in the routing",
    },
  },
} as const;

export const signerRecord = {
  type: 'object',
  required: ['id', 'type', 'config'],
  properties: {
    id: { type: 'string' },
    type: { enum: ALL_SIGNER_TYPES },
    config: {
      type: 'object',
      description: "the signer's config without its secret fields (docs/signers.md); a local signer's is always {}",
    },
  },
} as const;

export const networkRecord = {
  type: 'object',
  required: ['id', 'name', 'network_type', 'rpc_urls'],
  properties: {
    id: { type: 'string', description: '<network_type>:<name>' },
    name: { type: 'string' },
    network_type: { enum: ['evm', 'solana', 'stellar'] },
    rpc_urls: { type: 'array', items: rpcUrlRecord, description: 'path and query masked' },
    chain_id: { type: 'integer' },
    symbol: { type: 'string' },
    passphrase: { type: 'string' },
  },
} as const;

export const apiKeyRecord = {
  type: 'object',
  required: ['id', 'name', 'permissions', 'allowed_origins', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    allowed_origins: { type: 'array', items: { type: 'string' } },
    created_at: timestamp,
    rate_limit: {
      description: "This key's own rate limit; null: the service's (RATE_LIMIT_RPS / RATE_LIMIT_BURST).",
      anyOf: [
        {
          type: 'object',
          required: ['requests_per_second', 'burst_size'],
          properties: { requests_per_second: { type: 'integer' }, burst_size: { type: 'integer' } },
        },
        { type: 'null' },
      ],
    },
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
    funds_reserved: {
      type: 'string',
      pattern: '^\\d+$',
      description:
        "EVM only: wei of the relayer's balance this send holds until it is mined or fails (the worst case of every version signed: value + gas_limit × max fee + L1 fee); 0 once released",
    },
    l1_fee: {
      type: 'string',
      pattern: '^\\d+$',
      description:
        "OP-stack networks (tag optimism-based) only: the L1 data fee in wei, from the chain's gas price oracle when it was sent or replaced",
    },
    lane_top_up: {
      type: 'object',
      required: ['lane'],
      properties: { lane: { type: 'string', description: 'the address of the pool key it tops up' } },
      description:
        "our extension, EVM key pools only: a top-up the pool's funding key sent to one of its lanes (docs/transactions.md, Funding)",
    },
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
  required: [
    'id',
    'event',
    'transaction_id',
    'status',
    'attempts',
    'last_error',
    'next_attempt_at',
    'created_at',
    'delivered_at',
  ],
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
  required: [
    'id',
    'path',
    'timeout',
    'emit_logs',
    'emit_traces',
    'raw_response',
    'allow_get_invocation',
    'forward_logs',
    'config_keys',
    'state',
    'content_hash',
    'error',
  ],
  properties: {
    id: { type: 'string' },
    path: { type: 'string', description: 'relative to the plugins directory' },
    timeout: { type: 'number', description: 'seconds' },
    emit_logs: { type: 'boolean' },
    emit_traces: { type: 'boolean' },
    raw_response: { type: 'boolean' },
    allow_get_invocation: { type: 'boolean' },
    forward_logs: { type: 'boolean' },
    config_keys: {
      type: 'array',
      items: { type: 'string' },
      description: '`config` values stay private: only their keys are listed',
    },
    env_keys: {
      type: 'array',
      items: { type: 'string' },
      description: "the plugin's `process.env` (operator-only `env`): values stay private, only the names are listed",
    },
    allowed_origins: {
      type: 'array',
      items: { type: 'string' },
      description: 'the egress policy: origins the plugin may fetch (operator-only)',
    },
    service_env: {
      type: 'array',
      items: { type: 'string' },
      description: "names of the service's variables the plugin receives besides those its code names (operator-only)",
    },
    memory_mb: { type: 'integer' },
    max_concurrent_calls: { type: 'integer' },
    max_queued_calls: { type: 'integer' },
    kv_max_keys: { type: 'integer' },
    kv_max_bytes: { type: 'integer' },
    state: { enum: ['ready', 'error'] },
    content_hash: nullable({
      type: 'string',
      description:
        'sha256 of the bundled plugin code (first 32 hex digits); instances serving the same plugin show the same hash. null when it could not be loaded',
    }),
    error: nullable({
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    }),
  },
} as const;

/** Any JSON value: a plugin's result. */
export const anyValue = {} as const;
