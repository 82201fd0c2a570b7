// JSON Schemas of the /api/v1/networks routes (the reference's UpdateNetworkRequest: RPC URLs only).
import { customRpcUrlsSchema } from '../../config/schema.ts';

export const networkIdParams = {
  type: 'object',
  required: ['network_id'],
  properties: { network_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

export const updateNetworkBody = {
  type: 'object',
  additionalProperties: false,
  required: ['rpc_urls'],
  properties: {
    rpc_urls: {
      ...customRpcUrlsSchema,
      minItems: 1,
      description: "replaces the network's RPC URLs at once: strings or { url, weight }",
    },
  },
} as const;
