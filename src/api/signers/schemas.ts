// JSON Schemas of the /api/v1/signers routes (the reference's SignerCreateRequest and its empty SignerUpdateRequest).

export const signerIdParams = { type: 'object', required: ['signer_id'], properties: { signer_id: { type: 'string', minLength: 1, maxLength: 128 } } } as const;

/** The reference's request types; only `plain` (a raw key) is served, the others are refused with the reason by the domain. */
const SIGNER_TYPES = ['plain', 'aws_kms', 'vault', 'vault_transit', 'turnkey', 'cdp', 'google_cloud_kms'];

export const createSignerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'config'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    type: { enum: SIGNER_TYPES },
    config: { type: 'object' },
  },
  allOf: [
    {
      if: { required: ['type'], properties: { type: { const: 'plain' } } },
      then: {
        properties: {
          config: { type: 'object', additionalProperties: false, required: ['key'], properties: { key: { type: 'string', minLength: 1, maxLength: 200 } } },
        },
      },
    },
  ],
} as const;

/** The reference allows no change to a signer: an empty object, answered 400 with its reason. */
export const updateSignerBody = { type: 'object', additionalProperties: false, properties: {} } as const;
