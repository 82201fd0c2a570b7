// JSON Schema of the config file (networks, signers, relayers, notifications, plugins).
import { SUPPORTED_SIGNER_TYPES } from './signer-types.ts';
import { secretRef, SIGNER_SCHEMAS } from './signer-schemas.ts';
import { OPERATOR_SETTING_PROPERTIES, PLUGIN_SETTING_PROPERTIES } from '../../runtime/common/plugin-settings.ts';
const id = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } as const;
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;
const strings = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/** `rpc_urls` entries: a URL, or `{ url, weight }` (weight 0-100, default 100; highest is tried first). */
const rpcUrl = {
  'x-expect': 'an http(s) URL string, or { "url", "weight" } with weight 0-100',
  anyOf: [
    httpUrl,
    {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: { url: httpUrl, weight: { type: 'integer', minimum: 0, maximum: 100 } },
    },
  ],
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
    properties: {
      enabled: { type: 'boolean' },
      stale_after_ms: { type: 'integer', minimum: 1 },
      expire_after_ms: { type: 'integer', minimum: 1 },
    },
  },
  // Extension: how long a submitted transaction may stay unmined before it is re-priced and re-sent.
  resubmit_timeout_ms: { type: 'integer', minimum: 1 },
  // Extension: broadcasts made in the same turn go out as one JSON-RPC batch request (default: on for a devnet only,
  // since some providers refuse or limit batches).
  rpc_batch: { type: 'boolean' },
  // Extension: Relaybox starts a local anvil for this network (its RPC URL is the devnet's, so no rpc_urls).
  // block_time_ms absent: a block per transaction (automine); port absent or 0: any free loopback port.
  devnet: {
    type: 'object',
    additionalProperties: false,
    properties: {
      block_time_ms: { type: 'integer', minimum: 1 },
      port: { type: 'integer', minimum: 0, maximum: 65535 },
    },
  },
} as const;

const stellarNetwork = {
  ...commonNetwork,
  passphrase: { type: 'string', minLength: 1 },
  horizon_url: httpUrl,
} as const;

const networkOfType = (type: string, properties: object) => ({
  if: { required: ['type'], properties: { type: { const: type } } },
  then: { type: 'object', additionalProperties: false, properties },
});

/** One network object; the fields allowed depend on its `type`. */
export const networkSchema = {
  type: 'object',
  required: ['type', 'network'],
  properties: { type: commonNetwork.type },
  allOf: [
    networkOfType('evm', evmNetwork),
    networkOfType('solana', commonNetwork),
    networkOfType('stellar', stellarNetwork),
  ],
} as const;

/** A file of a networks directory (the reference's layout), and the inline array checked the same way. */
export const networkFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['networks'],
  properties: { $comment: { type: 'string' }, networks: { type: 'array', items: networkSchema } },
} as const;

export { secretRef };

const nullable = (schema: object, expect: string) => ({
  'x-expect': `${expect}, or null`,
  anyOf: [schema, { type: 'null' }],
});
const u64 = { type: 'integer', minimum: 0 } as const;
/**
 * An amount in the chain's smallest unit (wei, lamports, stroops, token units), read exactly (issue 39): a JSON number
 * or a decimal string. Numbers past 2^53 arrive as their decimal text (src/validation/exact-json.ts) and are bounded
 * by the format, as the reference types them (u128 for EVM, u64 elsewhere); `1e16` or `7.0` are refused.
 */
const amountPieces = (format: 'u128' | 'u64') =>
  [
    { type: 'integer', minimum: 0, 'x-plain-integer': true },
    { type: 'string', format },
  ] as const;
const amountExpect = (format: 'u128' | 'u64', unit: string) =>
  `a non-negative integer (${unit}, at most ${format === 'u128' ? '2^128' : '2^64'} - 1), as a JSON number or a decimal string`;
const amount = (format: 'u128' | 'u64', unit: string) => ({
  'x-expect': amountExpect(format, unit),
  anyOf: amountPieces(format),
});
const amountOrNull = (format: 'u128' | 'u64', unit: string) => ({
  'x-expect': `${amountExpect(format, unit)}, or null`,
  anyOf: [...amountPieces(format), { type: 'null' }],
});
const lamports = amount('u64', 'lamports');
const tokenUnits = amount('u64', 'token units');
const stroops = amount('u64', 'stroops');

/**
 * Relayer policies in the OpenZeppelin Relayer's shape, one schema per network type. EVM policies are enforced
 * (src/domain/relayers/policies.ts); Solana and Stellar ones are accepted and stored (see docs/compatibility.md).
 */
export const evmPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    min_balance: amountOrNull('u128', 'wei'),
    gas_price_cap: amountOrNull('u128', 'wei'),
    gas_limit_estimation: nullable({ type: 'boolean' }, 'a boolean'),
    whitelist_receivers: nullable(
      { type: 'array', items: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } },
      'an array of 0x-prefixed 20-byte hex addresses',
    ),
    eip1559_pricing: nullable({ type: 'boolean' }, 'a boolean'),
    private_transactions: nullable({ type: 'boolean' }, 'a boolean'),
    include_revert_data: nullable({ type: 'boolean' }, 'a boolean'),
    // A key pool's funding signer tops its lanes up (our extension; config/relayer-funding.ts).
    lane_min_balance: amountOrNull('u128', 'wei'),
    lane_target_balance: amountOrNull('u128', 'wei'),
  },
} as const;

const numberOrNull = nullable({ type: 'number' }, 'a number');
const stringsOrNull = nullable({ type: 'array', items: { type: 'string' } }, 'an array of strings');
const intOrNull = nullable(u64, 'a non-negative integer');
const boolOrNull = nullable({ type: 'boolean' }, 'a boolean');
const strategy = nullable({ enum: ['relayer', 'user'] }, "'relayer' or 'user'");

/** The reference's SolanaAllowedTokensSwapConfig: the token's slippage, and how much of it a swap sells. */
const solanaTokenSwap = {
  type: 'object',
  additionalProperties: false,
  properties: {
    slippage_percentage: { type: 'number', minimum: 0, maximum: 100 },
    min_amount: tokenUnits,
    max_amount: tokenUnits,
    retain_min_amount: tokenUnits,
  },
} as const;
/** A cron field: `*`, a value or range within its bounds, an optional step, comma lists of those. */
const cronField = (n: string) =>
  `(?:\\*|(?:${n})(?:-(?:${n}))?)(?:/[1-9][0-9]*)?(?:,(?:\\*|(?:${n})(?:-(?:${n}))?)(?:/[1-9][0-9]*)?)*`;
/** `cron_schedule` of a swap_config: UTC, five fields (minute hour day month weekday) or six with seconds first, each in range. */
const cronSchedule = {
  type: 'string',
  'x-expect': 'a cron schedule (minute hour day month weekday, or seconds first), each field in range',
  pattern: `^\\s*(?:${cronField('[0-5]?[0-9]')}\\s+)?${cronField('[0-5]?[0-9]')}\\s+${cronField('[01]?[0-9]|2[0-3]')}\\s+${cronField('0?[1-9]|[12][0-9]|3[01]')}\\s+${cronField('0?[1-9]|1[0-2]')}\\s+${cronField('[0-7]')}\\s*$`,
};

/** The reference's RelayerSolanaSwapConfig; `cron_schedule` in UTC, five fields or six with seconds first. */
const solanaSwapConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    strategy: { enum: ['jupiter-swap', 'jupiter-ultra', 'noop'] },
    cron_schedule: cronSchedule,
    min_balance_threshold: lamports,
    jupiter_swap_options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        priority_fee_max_lamports: lamports,
        priority_level: { type: 'string' },
        dynamic_compute_unit_limit: { type: 'boolean' },
      },
    },
  },
} as const;

export const solanaPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    allowed_accounts: stringsOrNull,
    allowed_programs: stringsOrNull,
    disallowed_accounts: stringsOrNull,
    allowed_tokens: nullable(
      {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['mint'],
          properties: {
            mint: { type: 'string', minLength: 1 },
            decimals: u64,
            symbol: { type: 'string' },
            max_allowed_fee: tokenUnits,
            swap_config: solanaTokenSwap,
          },
        },
      },
      'an array of { "mint", … }',
    ),
    fee_margin_percentage: numberOrNull,
    fee_payment_strategy: strategy,
    max_allowed_fee_lamports: amountOrNull('u64', 'lamports'),
    max_signatures: intOrNull,
    max_tx_data_size: intOrNull,
    min_balance: amountOrNull('u64', 'lamports'),
    swap_config: nullable(
      solanaSwapConfig,
      'an object { "strategy": "jupiter-swap", "cron_schedule", "min_balance_threshold", "jupiter_swap_options" }',
    ),
  },
} as const;

/** A Stellar fee token: `native`, `CODE:ISSUER` (a classic asset) or a Soroban token contract `C…` (the reference's forms). */
const stellarFeeToken = {
  type: 'string',
  'x-expect': "'native', 'CODE:ISSUER' (1-12 letters or digits, a G… issuer) or a contract address (C…)",
  anyOf: [{ const: 'native' }, { pattern: '^[A-Za-z0-9]{1,12}:G[A-Z2-7]{55}$' }, { pattern: '^C[A-Z2-7]{55}$' }],
} as const;
const percentage = { type: 'number', minimum: 0, maximum: 100 } as const;
/** The reference's StellarTokenMetadata: `decimals` sets how the fee reads in the token's units (default 7). */
const stellarTokenMetadata = {
  type: 'object',
  properties: { decimals: { type: 'integer', minimum: 0, maximum: 18 } },
} as const;
const stellarTokenSwap = {
  type: 'object',
  additionalProperties: false,
  properties: {
    slippage_percentage: percentage,
    min_amount: tokenUnits,
    max_amount: tokenUnits,
    retain_min_amount: tokenUnits,
  },
} as const;
/** The reference's RelayerStellarSwapConfig; `cron_schedule` in UTC, five fields or six with seconds first. */
const stellarSwapConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    strategies: { type: 'array', items: { enum: ['order-book', 'soroswap'] } },
    cron_schedule: cronSchedule,
    min_balance_threshold: stroops,
  },
} as const;

export const stellarPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    allowed_tokens: nullable(
      {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['asset'],
          properties: {
            asset: stellarFeeToken,
            max_allowed_fee: tokenUnits,
            metadata: stellarTokenMetadata,
            swap_config: stellarTokenSwap,
          },
        },
      },
      'an array of { "asset", … }',
    ),
    concurrent_transactions: boolOrNull,
    fee_margin_percentage: nullable({ type: 'number', minimum: 0, maximum: 1000 }, 'a percentage from 0 to 1000'),
    fee_payment_strategy: strategy,
    max_fee: amountOrNull('u64', 'stroops'),
    min_balance: amountOrNull('u64', 'stroops'),
    slippage_percentage: nullable(percentage, 'a percentage from 0 to 100'),
    swap_config: nullable(
      stellarSwapConfig,
      'an object { "strategies": ["order-book"], "cron_schedule", "min_balance_threshold" }',
    ),
    timeout_seconds: intOrNull,
  },
} as const;

/** `custom_rpc_urls` of a relayer: the same entries as a network's `rpc_urls`. */
export const customRpcUrlsSchema = { type: 'array', items: rpcUrl } as const;

/** A notification's `url`: http(s); the empty string is accepted (the reference's example has one) and never delivered to. */
const webhookUrl = { 'x-expect': 'an http(s) URL', anyOf: [httpUrl, { const: '' }] } as const;

/** Fields of every signer entry. */
const signerCommon = { $comment: { type: 'string' }, id, type: { enum: [...SUPPORTED_SIGNER_TYPES] } } as const;

/**
 * Our extras of a `local` signer besides the reference's keystore `config`. EVM: 32 bytes of hex. Solana: a base58
 * 64-byte secret key, its JSON array, or a 32-byte seed (hex or base58). Stellar: a secret seed (S…). The address is
 * derived; a configured `address` must match it.
 */
const localExtras = {
  private_key: { type: 'string', minLength: 1 },
  private_key_env: { type: 'string', pattern: '^[A-Z_][A-Z0-9_]*$' },
  address: { type: 'string', minLength: 1 },
  development: { type: 'boolean' },
} as const;

/** One signer entry: `config` is the object of its type (signer-schemas.ts); required except for `local`'s extras. */
export const signerSchema = {
  type: 'object',
  required: ['id', 'type'],
  properties: { type: signerCommon.type },
  allOf: Object.entries(SIGNER_SCHEMAS).map(([type, { schema }]) => ({
    if: { required: ['type'], properties: { type: { const: type } } },
    then: {
      type: 'object',
      additionalProperties: false,
      required: type === 'local' ? [] : ['config'],
      properties: { ...signerCommon, ...(type === 'local' ? localExtras : {}), config: schema },
    },
  })),
} as const;

export const configFileSchema = {
  type: 'object',
  additionalProperties: false,
  // `networks` may be left out, as in the reference: its default directory is read (config.ts defaultNetworks).
  required: ['signers', 'relayers'],
  properties: {
    $comment: { type: 'string' },
    // Checked item by item in config/networks.ts (networkFileSchema), after loading a directory if given.
    networks: {
      'x-expect': 'an array of networks, or the path of a directory of JSON files each holding { "networks": [...] }',
      anyOf: [{ type: 'array' }, { type: 'string', minLength: 1 }],
    },
    signers: { type: 'array', items: signerSchema },
    relayers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        // signer_id, or signer_ids (a key pool, our extension): which one, file.ts (relayer-pools.ts) says.
        required: ['id', 'name', 'network'],
        properties: {
          id,
          name: { type: 'string', minLength: 1, maxLength: 200 },
          network: id,
          network_type: { enum: ['evm', 'solana', 'stellar'] },
          signer_id: id,
          signer_ids: { type: 'array', minItems: 1, maxItems: 64, items: id },
          max_pending_per_key: { type: 'integer', minimum: 1, maximum: 1024 },
          funding_signer_id: id,
          paused: { type: 'boolean' },
          notification_id: { anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9_-]{1,36}$' }, { type: 'null' }] },
          initial_nonce: { type: 'integer', minimum: 0 },
          // Checked against the network type's policy schema once the type is known (config.ts).
          policies: { type: 'object' },
          custom_rpc_urls: customRpcUrlsSchema,
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
          url: webhookUrl,
          signing_key: {
            'x-expect': 'a string of at least 32 characters, or { "type": "env" | "plain", "value" }',
            anyOf: [{ type: 'string', minLength: 32 }, secretRef],
          },
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
          // One declaration with the API's and the runtime's (runtime/common/plugin-settings.ts).
          ...PLUGIN_SETTING_PROPERTIES,
          ...OPERATOR_SETTING_PROPERTIES,
        },
      },
    },
  },
} as const;
