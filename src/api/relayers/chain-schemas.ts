// JSON Schemas of the relayer chain routes' bodies: rpc, sign, sign-typed-data, sign-transaction (the reference's fields).
export const rpcBody = {
  type: 'object',
  additionalProperties: false,
  required: ['method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: {
      'x-expect': 'a string, an integer or null',
      anyOf: [{ type: 'string', maxLength: 256 }, { type: 'integer' }, { type: 'null' }],
    },
    method: { type: 'string', minLength: 1, maxLength: 128 },
    params: {
      'x-expect': 'an array or an object (or null)',
      anyOf: [{ type: 'array' }, { type: 'object' }, { type: 'null' }],
    },
  },
} as const;

export const signDataBody = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: { message: { type: 'string', description: 'Signed as an EIP-191 personal message (its UTF-8 bytes).' } },
} as const;

const hash32 = { type: 'string', maxLength: 66, description: '32 bytes of hex, 0x optional.' } as const;

export const signTypedDataBody = {
  type: 'object',
  additionalProperties: false,
  required: ['domain_separator', 'hash_struct_message'],
  properties: { domain_separator: hash32, hash_struct_message: hash32 },
} as const;

export const signStellarBody = {
  type: 'object',
  additionalProperties: false,
  required: ['unsigned_xdr'],
  properties: {
    unsigned_xdr: { type: 'string', minLength: 1, maxLength: 262_144, description: 'Base64 transaction envelope XDR.' },
  },
} as const;

export const signSolanaBody = {
  type: 'object',
  additionalProperties: false,
  required: ['transaction'],
  properties: {
    transaction: {
      type: 'string',
      minLength: 1,
      maxLength: 8192,
      description: 'Base64 wire transaction with the relayer as fee payer.',
    },
  },
} as const;

/** The reference's EVM variant (bytes); accepted as input and refused as the reference does, EVM signing a transaction is not offered. */
export const signEvmBody = {
  type: 'array',
  maxItems: 131_072,
  items: { type: 'integer', minimum: 0, maximum: 255 },
} as const;

export const signTransactionBody = {
  description:
    'Stellar: `unsigned_xdr`. Solana: `transaction`. EVM relayers answer 400 `Transaction signing not supported for EVM`, as the reference.',
  oneOf: [signStellarBody, signSolanaBody, signEvmBody],
} as const;
