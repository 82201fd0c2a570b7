// JSON Schema of the config file (networks, signers, relayers, notifications, plugins).
const id = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;
const strings = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/** `rpc_urls` entries: a URL, or `{ url, weight }` (weight 0-100, default 100; highest is tried first). */
const rpcUrl = {
  'x-expect': 'an http(s) URL string, or { "url", "weight" } with weight 0-100',
  anyOf: [httpUrl, { type: 'object', additionalProperties: false, required: ['url'], properties: { url: httpUrl, weight: { type: 'integer', minimum: 0, maximum: 100 } } }],
} as const;

/** Fields every network type has (the OpenZeppelin Relayer's shape); `from` names a parent of the same type. */
const commonNetwork = {
  $comment: { type: 'string' },
  type: { enum: ['evm', 'solana', 'stellar'] },
  network: id,
  from: id,
  // Non-empty unless the network is a devnet (checked after `from` is resolved).
  rpc_urls: { type: 'array', items: rpcUrl },
  explorer_urls: { type: 'array', items: httpUrl },
  average_blocktime_ms: { type: 'integer', minimum: 1 },
  is_testnet: { type: 'boolean' },
  tags: strings,
} as const;

const evmNetwork = {
  ...commonNetwork,
  chain_id: { type: 'integer', minimum: 1 },
  required_confirmations: { type: 'integer', minimum: 0 },
  features: strings,
  symbol: { type: 'string', minLength: 1 },
  gas_price_cache: {
    type: 'object',
    additionalProperties: false,
    properties: { enabled: { type: 'boolean' }, stale_after_ms: { type: 'integer', minimum: 1 }, expire_after_ms: { type: 'integer', minimum: 1 } },
  },
  // Extension: how long a submitted transaction may stay unmined before it is re-priced and re-sent.
  resubmit_timeout_ms: { type: 'integer', minimum: 1 },
  // Extension: Relaybox starts a local anvil for this network (its RPC URL is the devnet's, so no rpc_urls).
  // block_time_ms absent: a block per transaction (automine); port absent or 0: any free loopback port.
  devnet: {
    type: 'object',
    additionalProperties: false,
    properties: { block_time_ms: { type: 'integer', minimum: 1 }, port: { type: 'integer', minimum: 0, maximum: 65535 } },
  },
} as const;

const stellarNetwork = { ...commonNetwork, passphrase: { type: 'string', minLength: 1 }, horizon_url: httpUrl } as const;

const networkOfType = (type: string, properties: object) => ({
  if: { required: ['type'], properties: { type: { const: type } } },
  then: { type: 'object', additionalProperties: false, properties },
});

/** One network object; the fields allowed depend on its `type`. */
export const networkSchema = {
  type: 'object',
  required: ['type', 'network'],
  properties: { type: commonNetwork.type },
  allOf: [networkOfType('evm', evmNetwork), networkOfType('solana', commonNetwork), networkOfType('stellar', stellarNetwork)],
} as const;

/** A file of a networks directory (the reference's layout), and the inline array checked the same way. */
export const networkFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['networks'],
  properties: { $comment: { type: 'string' }, networks: { type: 'array', items: networkSchema } },
} as const;

export const configFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['networks', 'signers', 'relayers'],
  properties: {
    $comment: { type: 'string' },
    // Checked item by item in config-networks.ts (networkFileSchema), after loading a directory if given.
    networks: {
      'x-expect': 'an array of networks, or the path of a directory of JSON files each holding { "networks": [...] }',
      anyOf: [{ type: 'array' }, { type: 'string', minLength: 1 }],
    },
    signers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type'],
        properties: {
          $comment: { type: 'string' },
          id,
          type: { const: 'local' },
          // EVM: 32 bytes of hex. Solana: a base58 64-byte secret key, its JSON array, or a 32-byte seed (hex or base58).
          // Stellar: a secret seed (S…). The address is derived; a configured `address` must match it.
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
          network_type: { enum: ['evm', 'solana', 'stellar'] },
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
