// JSON Schemas for the /api/v1/notifications routes (compiled once, when the router is mounted).
const notificationId = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' } as const;
// An absolute http(s) URL with a host; `uri` alone would accept 'http://'.
const url = { type: 'string', maxLength: 2048, format: 'uri', pattern: '^https?://[^/?#\\s]+' } as const;
const signingKey = { type: 'string', minLength: 32, maxLength: 1024 } as const;

export const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    id: notificationId,
    type: { enum: ['webhook'] },
    url,
    signing_key: signingKey,
  },
} as const;

export const updateBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    // The reference's update request carries `type` (its only value, webhook): accepted, nothing to change.
    type: { enum: ['webhook'] },
    url,
    signing_key: {
      'x-expect': 'an empty string (removes the key) or a string of at least 32 characters',
      anyOf: [{ type: 'string', maxLength: 0 }, signingKey],
    },
  },
} as const;

export const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: notificationId },
} as const;

export const deliveryParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event_id'],
  properties: { id: notificationId, event_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
