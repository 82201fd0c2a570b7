// POST /api/v1/relayers/{relayer_id}/transactions/sponsored/quote and /build (the reference's gasless transactions):
// the body is checked by the schema of the relayer's network type, then its family's quote or build answers.
import type { Router } from 'express';
import type { NetworkType, RelayerOperations } from '../../domain/types.ts';
import type { SponsoredFamily } from '../../domain/sponsored/ports.ts';
import type { RelayerService } from '../../domain/relayers/service.ts';
import { requireActive } from '../../domain/relayers/active-state.ts';
import { AppError, ValidationError } from '../../errors.ts';
import { success } from '../../http/envelope.ts';
import { methodNotAllowed } from '../../http/error-handler.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { compile, type Validator } from '../../validation/compile.ts';
import { idSchema, operation } from './schemas.ts';

type Operations = Pick<RelayerOperations, 'quoteSponsoredTransaction' | 'buildSponsoredTransaction'>;

const QUOTE = '/:relayer_id/transactions/sponsored/quote';
const BUILD = '/:relayer_id/transactions/sponsored/build';

export function mountSponsoredRoutes(router: Router, ops: Operations): void {
  router.post(QUOTE, async (req, res) => {
    res.json(success(await ops.quoteSponsoredTransaction(req.params.relayer_id!, req.body)));
  });
  router.post(BUILD, async (req, res) => {
    res.json(success(await ops.buildSponsoredTransaction(req.params.relayer_id!, req.body)));
  });
  router.all(QUOTE, methodNotAllowed);
  router.all(BUILD, methodNotAllowed);
}

/** The reference's Stellar quote and build request (StellarFeeEstimateRequestParams / StellarPrepareTransactionRequestParams). */
export const stellarSponsoredBody = {
  type: 'object',
  additionalProperties: false,
  required: ['fee_token'],
  properties: {
    transaction_xdr: {
      type: 'string',
      minLength: 1,
      maxLength: 262_144,
      description:
        "The user's transaction (base64 envelope XDR, the user as source). Exactly one of this and `operations`.",
    },
    operations: { type: 'array', maxItems: 100, items: operation },
    source_account: { type: 'string', description: "The user's account (G…); required with `operations`." },
    fee_token: {
      type: 'string',
      maxLength: 128,
      description:
        '`native` or `CODE:ISSUER` (a classic asset). A Soroban token contract (`C…`) is refused with the reason.',
    },
  },
} as const;

/** The reference's Solana quote and build request (its feeEstimate and prepareTransaction params). */
export const solanaSponsoredBody = {
  type: 'object',
  additionalProperties: false,
  required: ['transaction', 'fee_token'],
  properties: {
    transaction: {
      type: 'string',
      minLength: 1,
      maxLength: 65_536,
      description: "The user's transaction (base64 wire transaction, the user as fee payer, signed or not).",
    },
    fee_token: {
      type: 'string',
      maxLength: 64,
      description: 'The SPL token mint the fee is paid in (in `allowed_tokens` when set).',
    },
  },
} as const;

/** Bodies by network type; a family without sponsored transactions has none. */
const BODIES: Partial<Record<NetworkType, object>> = { stellar: stellarSponsoredBody, solana: solanaSponsoredBody };

function withoutNulls(body: unknown): Record<string, unknown> {
  if (body === undefined) throw new ValidationError('a JSON request body is required');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('the body must be a JSON object');
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}

/** The reference's texts for a request of another family's shape (its untagged request enum). */
function otherShape(networkType: NetworkType, body: Record<string, unknown>): string | null {
  if (networkType === 'stellar' && 'transaction' in body)
    return 'Solana request type does not match Stellar relayer type';
  if (networkType === 'solana' && ('transaction_xdr' in body || 'operations' in body))
    return 'Stellar request type does not match Solana relayer type';
  return null;
}

export function createSponsoredOperations(deps: {
  relayers: RelayerService;
  families: Partial<Record<NetworkType, SponsoredFamily>>;
}): Operations {
  const relayerId = compile<string>(idSchema, 'relayer_id');
  const bodies = Object.fromEntries(
    Object.entries(BODIES).map(([type, schema]) => [type, compile<Record<string, unknown>>(schema, 'body')]),
  ) as Partial<Record<NetworkType, Validator<Record<string, unknown>>>>;

  const prepare = async (id: string, raw: unknown) => {
    const relayer = await deps.relayers.require(relayerId(id));
    requireActive(relayer);
    if (relayer.network_type === 'evm')
      throw new AppError('NOT_SUPPORTED', { reason: 'Gas abstraction not supported for EVM relayers' });
    const family = deps.families[relayer.network_type];
    const validate = bodies[relayer.network_type];
    if (!family || !validate)
      throw new AppError('NOT_SUPPORTED', {
        reason: `Gas abstraction is not offered for ${relayer.network_type} relayers yet`,
      });
    const body = withoutNulls(raw);
    const mismatch = otherShape(relayer.network_type, body);
    if (mismatch) throw new ValidationError(mismatch);
    return { relayer, family, body: validate(body) };
  };

  return {
    async quoteSponsoredTransaction(id, raw) {
      const { relayer, family, body } = await prepare(id, raw);
      return family.quote(relayer, body);
    },
    async buildSponsoredTransaction(id, raw) {
      const { relayer, family, body } = await prepare(id, raw);
      return family.build(relayer, body);
    },
  };
}

const params = { type: 'object', required: ['relayer_id'], properties: { relayer_id: idSchema } } as const;
const decimal = { type: 'string', pattern: '^[0-9]+$' } as const;
const quoteResult = {
  type: 'object',
  required: ['fee_in_token_ui', 'fee_in_token', 'conversion_rate'],
  properties: {
    fee_in_token_ui: { type: 'string', description: 'The fee in the token, in its decimal units.' },
    fee_in_token: { ...decimal, description: "The fee in the token's smallest unit." },
    conversion_rate: { type: 'string', description: 'Token units per stroop (the order book price of the fee).' },
    max_fee_in_token: { ...decimal, description: 'Soroban gas abstraction only (not offered).' },
    max_fee_in_token_ui: { type: 'string', description: 'Soroban gas abstraction only (not offered).' },
  },
} as const;
const buildResult = {
  type: 'object',
  required: ['transaction', 'fee_in_token', 'fee_in_token_ui', 'fee_in_stroops', 'fee_token', 'valid_until'],
  properties: {
    transaction: {
      type: 'string',
      description:
        "The user's transaction with the fee payment to the relayer added and time bounds set: for the user to sign, then send with `fee_bump: true`.",
    },
    fee_in_token: decimal,
    fee_in_token_ui: { type: 'string' },
    fee_in_stroops: { ...decimal, description: 'What the relayer pays the network (margin included).' },
    fee_token: { type: 'string' },
    valid_until: { type: 'string', format: 'date-time' },
    user_auth_entry: { type: 'string', description: 'Soroban gas abstraction only (not offered).' },
    max_fee_in_token: decimal,
    max_fee_in_token_ui: { type: 'string' },
  },
} as const;
// Solana: the reference answers with its feeEstimate and prepareTransaction results.
const solanaQuoteResult = {
  type: 'object',
  required: ['estimated_fee', 'conversion_rate'],
  properties: {
    estimated_fee: { type: 'string', description: 'The fee in whole tokens (decimal).' },
    conversion_rate: { type: 'string', description: 'Tokens per SOL.' },
  },
} as const;
const solanaBuildResult = {
  type: 'object',
  required: ['transaction', 'fee_in_spl', 'fee_in_lamports', 'fee_token', 'valid_until_blockheight'],
  properties: {
    transaction: {
      type: 'string',
      description:
        "The user's instructions after a fee transfer to the relayer, the relayer as fee payer, signed by it: for the user to sign and send.",
    },
    fee_in_spl: decimal,
    fee_in_lamports: decimal,
    fee_token: { type: 'string' },
    valid_until_blockheight: { type: 'integer' },
  },
} as const;
const exampleBody = {
  operations: [
    {
      type: 'payment',
      destination: 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI',
      amount: 1000000,
      asset: { type: 'native' },
    },
  ],
  source_account: 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ',
  fee_token: 'USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN',
};
const errors = [
  'RELAYER_NOT_FOUND',
  'RELAYER_PAUSED',
  'RELAYER_DISABLED',
  'NOT_SUPPORTED',
  'CHAIN_UNAVAILABLE',
] as const;

export const sponsoredRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: QUOTE,
    summary: 'Quote the fee of a sponsored (gasless) transaction in a token',
    description:
      "Stellar: the fee the relayer will pay (the user's operations, the fee payment and the fee bump, plus `fee_margin_percentage`) priced in `fee_token` from the order book (Horizon's `/paths/strict-send`). The token must be in `allowed_tokens` (when set) and the user must hold enough of it. EVM relayers answer 400.",
    params,
    body: { oneOf: [stellarSponsoredBody, solanaSponsoredBody] },
    data: { oneOf: [quoteResult, solanaQuoteResult] },
    errors,
    examples: { body: exampleBody, data: { fee_in_token_ui: '0.00045', fee_in_token: '4500', conversion_rate: '15' } },
  },
  {
    method: 'post',
    path: BUILD,
    summary: 'Build a sponsored (gasless) transaction: the user pays the fee in a token',
    description:
      "Stellar (needs `fee_payment_strategy: user`): the user's transaction (from `transaction_xdr` or `operations` with `source_account`) with a payment of the quoted fee to the relayer added and time bounds of two minutes. The user signs it and sends it to `POST …/transactions` with `fee_bump: true`: the relayer checks the payment again and pays the network in a fee bump.",
    params,
    body: { oneOf: [stellarSponsoredBody, solanaSponsoredBody] },
    data: { oneOf: [buildResult, solanaBuildResult] },
    errors,
    examples: {
      body: exampleBody,
      data: {
        transaction: 'AAAAAgAAAAD…',
        fee_in_token: '4500',
        fee_in_token_ui: '0.00045',
        fee_in_stroops: '300',
        fee_token: exampleBody.fee_token,
        valid_until: '2026-01-01T12:02:00Z',
      },
    },
  },
];
