// JSON Schemas for the relayer and transaction requests: path ids, list queries, PATCH, shapes A, B, C.
import { schemas } from '../../validation.ts';
import { pageQuery, pagingProperties } from '../paging.ts';

const STATUSES = ['pending', 'sent', 'submitted', 'mined', 'confirmed', 'failed', 'expired', 'canceled'];
export const SPEEDS = ['fastest', 'fast', 'average', 'safeLow'];

export const idSchema = { type: 'string', minLength: 1, maxLength: 128 } as const;

export const listRelayersQuery = pageQuery;

export const listTransactionsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pagingProperties, status: { enum: STATUSES } },
} as const;

export const updateRelayerBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    paused: { type: 'boolean' },
    notification_id: { anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' }, { type: 'null' }], 'x-expect': 'a notification id (1-36 of A-Z a-z 0-9 _ -) or null' },
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

/** Shape B: Solana; the encoded serialized transaction is a base64 string. */
export const solanaBody = {
  type: 'object',
  additionalProperties: false,
  required: ['transaction'],
  properties: { transaction: { type: 'string', minLength: 1, maxLength: 8192 } },
} as const;

const asset = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['native', 'credit_alphanum4', 'credit_alphanum12'] } },
  allOf: [
    { if: { properties: { type: { const: 'native' } } }, then: { type: 'object', additionalProperties: false, properties: { type: true } } },
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

export const OPERATION_TYPES = ['payment', 'invoke_contract'];

const operation = {
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
      if: { properties: { type: { const: 'invoke_contract' } } },
      then: {
        type: 'object',
        additionalProperties: false,
        required: ['contract_address', 'function_name', 'args'],
        properties: {
          type: true,
          contract_address: { type: 'string' },
          function_name: { type: 'string', minLength: 1, maxLength: 32 },
          args: { type: 'array' },
          auth: {},
        },
      },
    },
  ],
} as const;

const byteArray32 = { type: 'array', minItems: 32, maxItems: 32, items: { type: 'integer', minimum: 0, maximum: 255, 'x-plain-integer': true } } as const;

const memo = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['none', 'text', 'id', 'hash', 'return'] } },
  allOf: [
    { if: { properties: { type: { const: 'none' } } }, then: { type: 'object', additionalProperties: false, properties: { type: true } } },
    { if: { properties: { type: { const: 'text' } } }, then: { type: 'object', additionalProperties: false, required: ['value'], properties: { type: true, value: { type: 'string' } } } },
    { if: { properties: { type: { const: 'id' } } }, then: { type: 'object', additionalProperties: false, required: ['value'], properties: { type: true, value: schemas.int64 } } },
    {
      if: { properties: { type: { enum: ['hash', 'return'] } } },
      then: { type: 'object', additionalProperties: false, required: ['value'], properties: { type: true, value: byteArray32 } },
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
  },
} as const;
