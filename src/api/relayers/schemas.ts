// JSON Schemas for the relayer and transaction requests: path ids, list queries, PATCH, shapes A, B, C.
import { schemas } from '../../validation/compile.ts';
import { customRpcUrlsSchema } from '../../config/schema.ts';
import { pageQuery, pagingProperties } from '../paging.ts';

const STATUSES = ['pending', 'sent', 'submitted', 'mined', 'confirmed', 'failed', 'expired', 'canceled'];
export const SPEEDS = ['fastest', 'fast', 'average', 'safeLow'];

export const idSchema = { type: 'string', minLength: 1, maxLength: 128 } as const;

/** A send's `Idempotency-Key` header (or a plugin's `idempotencyKey`): printable ASCII, as Stripe's keys, up to 255. */
export const idempotencyKeySchema = {
  'x-expect': 'a string of 1 to 255 printable ASCII characters',
  anyOf: [{ type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' }],
} as const;

export const listRelayersQuery = pageQuery;

/** A path segment: the reference takes a u64 there. */
export const nonceSchema = {
  'x-expect': 'a non-negative integer (u64) in decimal digits',
  anyOf: [{ type: 'string', format: 'u64' }],
} as const;

export const listTransactionsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pagingProperties, status: { enum: STATUSES } },
} as const;

const notificationId = {
  anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' }, { type: 'null' }],
  'x-expect': 'a notification id (1-36 of A-Z a-z 0-9 _ -) or null',
} as const;
const relayerName = { type: 'string', minLength: 1, maxLength: 200 } as const;
/** Checked against the schema of the relayer's network type once it is known (src/config/relayer-policies.ts). */
const policies = {
  type: 'object',
  description:
    "the reference's policies for the relayer's network type (EVM: min_balance, gas_price_cap, gas_limit_estimation, whitelist_receivers, eip1559_pricing, private_transactions; our extension for a key pool with a funding key: lane_min_balance, lane_target_balance)",
} as const;
const rpcUrls = {
  ...customRpcUrlsSchema,
  description: "RPC URLs for this relayer instead of its network's: strings or { url, weight }",
} as const;

/** A key pool's in-flight limit per key (our extension; docs/transactions.md, Key pools). */
const maxPendingPerKey = { type: 'integer', minimum: 1, maximum: 1024 } as const;
const signerIds = {
  type: 'array',
  minItems: 1,
  maxItems: 64,
  items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;
/** A key pool's funding key (our extension; docs/transactions.md, Funding). */
const fundingSignerId = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description:
    "our extension, a key pool's funding key: tops each lane up to policies.lane_target_balance when it falls under policies.lane_min_balance",
} as const;

export const updateRelayerBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: relayerName,
    paused: { type: 'boolean' },
    notification_id: notificationId,
    policies: { anyOf: [policies, { type: 'null' }], 'x-expect': 'a policies object or null' },
    custom_rpc_urls: {
      anyOf: [rpcUrls, { type: 'null' }],
      'x-expect': 'an array of http(s) URLs or { "url", "weight" } (0-100), or null',
    },
    max_pending_per_key: maxPendingPerKey,
    signer_ids: { ...signerIds, description: "our extension: a key pool's keys (the first cannot change)" },
    funding_signer_id: {
      anyOf: [fundingSignerId, { type: 'null' }],
      'x-expect': 'a signer id, or null to drop the funding key',
    },
  },
} as const;

export const createRelayerBody = {
  type: 'object',
  additionalProperties: false,
  // signer_id (the reference's), or signer_ids (a key pool, our extension): the domain says which is missing.
  required: ['name', 'network', 'network_type', 'paused'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    name: relayerName,
    network: { type: 'string', minLength: 1, maxLength: 64 },
    network_type: { enum: ['evm', 'solana', 'stellar'] },
    paused: { type: 'boolean' },
    signer_id: { type: 'string', minLength: 1, maxLength: 64 },
    signer_ids: signerIds,
    max_pending_per_key: maxPendingPerKey,
    funding_signer_id: fundingSignerId,
    notification_id: notificationId,
    policies,
    custom_rpc_urls: rpcUrls,
  },
} as const;

/** Shape A: EVM (a null gas_limit is dropped before validating). Semantic rules (pricing mode, to/data, valid_until) live in the domain. */
export const evmBody = {
  type: 'object',
  additionalProperties: false,
  required: ['value'],
  properties: {
    value: schemas.u128,
    to: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
    data: { type: 'string', pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 262_146 },
    gas_limit: schemas.int64,
    gas_price: schemas.u128,
    max_fee_per_gas: schemas.u128,
    max_priority_fee_per_gas: schemas.u128,
    speed: { enum: SPEEDS },
    valid_until: { type: 'string', format: 'date-time' },
  },
} as const;

const solanaInstruction = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id', 'accounts', 'data'],
  properties: {
    program_id: { type: 'string', maxLength: 64 },
    accounts: {
      type: 'array',
      maxItems: 256,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['pubkey', 'is_signer', 'is_writable'],
        properties: {
          pubkey: { type: 'string', maxLength: 64 },
          is_signer: { type: 'boolean' },
          is_writable: { type: 'boolean' },
        },
      },
    },
    data: { type: 'string', maxLength: 4096 },
  },
} as const;

/**
 * Shape B: Solana; `transaction` is the base64 wire transaction, or the reference's `instructions` form
 * (exactly one of them: the domain says which is missing, with the reference's texts).
 */
export const solanaBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    transaction: { type: 'string', minLength: 1, maxLength: 8192 },
    instructions: { type: 'array', maxItems: 256, items: solanaInstruction },
    valid_until: { type: 'string', format: 'date-time' },
  },
} as const;

const asset = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['native', 'credit_alphanum4', 'credit_alphanum12'] } },
  allOf: [
    {
      if: { properties: { type: { const: 'native' } } },
      then: { type: 'object', additionalProperties: false, properties: { type: true } },
    },
    {
      if: { properties: { type: { enum: ['credit_alphanum4', 'credit_alphanum12'] } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'code', 'issuer'],
        properties: { type: true, code: { type: 'string' }, issuer: { type: 'string' } },
      },
    },
  ],
} as const;

const stroops = {
  'x-expect': 'an integer amount in stroops (int64), as a JSON number or a decimal string',
  anyOf: [
    { type: 'integer', minimum: 0, 'x-plain-integer': true },
    { type: 'string', format: 'int64' },
  ],
} as const;

export const OPERATION_TYPES = ['payment', 'create_account', 'change_trust', 'invoke_contract'];

const contractAuth = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['none', 'source_account', 'xdr'] } },
  allOf: [
    {
      if: { properties: { type: { enum: ['none', 'source_account'] } } },
      then: { type: 'object', additionalProperties: false, properties: { type: true } },
    },
    {
      if: { properties: { type: { const: 'xdr' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['entries'],
        properties: {
          type: true,
          entries: { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 65_536 } },
        },
      },
    },
  ],
} as const;

/** One Stellar operation of shape C (also the sponsored quote and build's). */
export const operation = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: OPERATION_TYPES } },
  allOf: [
    {
      if: { properties: { type: { const: 'payment' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['destination', 'amount', 'asset'],
        properties: { type: true, destination: { type: 'string' }, amount: stroops, asset },
      },
    },
    {
      if: { properties: { type: { const: 'create_account' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['destination', 'starting_balance'],
        properties: { type: true, destination: { type: 'string' }, starting_balance: stroops },
      },
    },
    {
      if: { properties: { type: { const: 'change_trust' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['asset'],
        properties: { type: true, asset, limit: stroops },
      },
    },
    {
      if: { properties: { type: { const: 'invoke_contract' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['contract_address', 'function_name', 'args'],
        properties: {
          type: true,
          contract_address: { type: 'string' },
          function_name: { type: 'string', minLength: 1, maxLength: 32 },
          args: { type: 'array', maxItems: 64 },
          auth: contractAuth,
        },
      },
    },
  ],
} as const;

const byteArray32 = {
  type: 'array',
  minItems: 32,
  maxItems: 32,
  items: { type: 'integer', minimum: 0, maximum: 255, 'x-plain-integer': true },
} as const;

const memo = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['none', 'text', 'id', 'hash', 'return'] } },
  allOf: [
    {
      if: { properties: { type: { const: 'none' } } },
      then: { type: 'object', additionalProperties: false, properties: { type: true } },
    },
    {
      if: { properties: { type: { const: 'text' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['value'],
        properties: { type: true, value: { type: 'string' } },
      },
    },
    {
      if: { properties: { type: { const: 'id' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['value'],
        properties: { type: true, value: schemas.int64 },
      },
    },
    {
      if: { properties: { type: { enum: ['hash', 'return'] } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['value'],
        properties: {
          type: true,
          value: {
            'x-expect': '32 bytes: an array of 32 integers 0-255, or 64 hex digits',
            anyOf: [byteArray32, { type: 'string', pattern: '^[0-9a-fA-F]{64}$' }],
          },
        },
      },
    },
  ],
} as const;

/** Shape C: Stellar. A null optional field means absent: operations.ts drops nulls before validating. */
export const stellarBody = {
  type: 'object',
  additionalProperties: false,
  required: ['network'],
  properties: {
    network: { type: 'string', minLength: 1 },
    operations: { type: 'array', minItems: 1, maxItems: 100, items: operation },
    transaction_xdr: { type: 'string', minLength: 1, maxLength: 262_144 },
    source_account: { type: 'string' },
    memo,
    valid_until: { type: 'string', format: 'date-time' },
    fee_bump: { type: 'boolean' },
    max_fee: schemas.int64,
    signed_auth_entry: {
      type: 'string',
      minLength: 1,
      maxLength: 262_144,
      description:
        "Soroban gas abstraction: the user's signed SorobanAuthorizationEntry (base64 XDR), with transaction_xdr.",
    },
  },
} as const;
