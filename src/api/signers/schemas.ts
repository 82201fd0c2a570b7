// JSON Schemas of the /api/v1/signers routes (the reference's SignerCreateRequest and its empty SignerUpdateRequest).
import { ALL_SIGNER_TYPES, requestSchemaOf } from '../../config/signer-schemas.ts';

export const signerIdParams = {
  type: 'object',
  required: ['signer_id'],
  properties: { signer_id: { type: 'string', minLength: 1, maxLength: 128 } },
} as const;

/**
 * The reference's request types (`plain`: a raw key; the others: their config, each secret a string) and our `pkcs11`.
 * Each config is checked against its type's schema (src/config/signer-schemas.ts); a type whose adapter is not there
 * yet is refused by the domain with the supported list.
 */
const REMOTE_TYPES = ALL_SIGNER_TYPES.filter((t) => t !== 'local');

const configOfType = (type: string, config: object) => ({
  if: { required: ['type'], properties: { type: { const: type } } },
  then: { properties: { config } },
});

export const createSignerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'config'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    type: { enum: ['plain', ...REMOTE_TYPES] },
    config: { type: 'object' },
  },
  allOf: [
    configOfType('plain', {
      type: 'object',
      additionalProperties: false,
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1, maxLength: 200 } },
    }),
    ...REMOTE_TYPES.map((type) => configOfType(type, requestSchemaOf(type))),
  ],
} as const;

/** The reference allows no change to a signer: an empty object, answered 400 with its reason. */
export const updateSignerBody = { type: 'object', additionalProperties: false, properties: {} } as const;
