// The reference's fee-token JSON-RPC methods of a Solana relayer: feeEstimate, prepareTransaction and
// transferTransaction, with its parameter and result shapes (amounts as strings, the block height as a number).
import type { SolanaSigner } from './ports.ts';
import { checkAllowedToken, invalidParams, userPays } from './fee-policy.ts';
import { formatRate } from './fee-quote.ts';
import { solanaApproval } from '../../signers/gate.ts';
import { policyViolation, invalidTransaction } from './rpc-errors.ts';
import {
  checkRelayerBalance,
  checkUserTransaction,
  priceWithFee,
  tokenTransfer,
  userInstructions,
  type FeeContext,
  type PricedTransaction,
} from './user-fee.ts';

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The params object with exactly `fields` (the reference denies unknown fields), each a non-empty string unless noted. */
function readParams(params: unknown, fields: string[], numeric: string[] = []): Record<string, string> {
  if (params === null || typeof params !== 'object' || Array.isArray(params))
    throw invalidParams(`params must be an object with ${fields.map((f) => `'${f}'`).join(', ')}`);
  const record = params as Record<string, unknown>;
  const unknown = Object.keys(record).find((k) => !fields.includes(k));
  if (unknown) throw invalidParams(`unknown field '${unknown}', expected ${fields.map((f) => `'${f}'`).join(', ')}`);
  const out: Record<string, string> = {};
  for (const field of fields) {
    const value = record[field];
    if (numeric.includes(field)) {
      if (
        !(
          (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
          (typeof value === 'string' && /^\d{1,20}$/.test(value))
        )
      )
        throw invalidParams(`'${field}' must be a non-negative integer`);
      out[field] = String(value);
    } else {
      if (typeof value !== 'string' || value === '') throw invalidParams(`'${field}' must be a non-empty string`);
      out[field] = value;
    }
  }
  return out;
}

function address(value: string, what: string): string {
  if (!ADDRESS.test(value)) throw invalidParams(`Invalid ${what} address`);
  return value;
}

function requireSigner(ctx: FeeContext, signer: SolanaSigner | undefined): SolanaSigner {
  if (signer) return signer;
  throw invalidParams(
    `relayer '${ctx.relayer.id}' cannot sign: its signer '${ctx.relayer.signer_id}' has an address but no key`,
  );
}

export async function feeEstimate(ctx: FeeContext, params: unknown) {
  const { transaction, fee_token } = readParams(params, ['transaction', 'fee_token']);
  const tx = ctx.chain.inspect(transaction);
  await checkUserTransaction(ctx, tx, address(fee_token!, 'token mint'));
  const user = userPays(ctx.policy);
  const priced = await priceWithFee(
    ctx,
    tx.feePayer,
    fee_token!,
    user ? userInstructions(ctx, tx) : tx.instructions.map((i) => i.spec),
    user,
  );
  return { estimated_fee: priced.quote.feeInSplUi, conversion_rate: formatRate(priced.quote.conversionRate) };
}

/** The relayer's balance checked, then its signature as fee payer; the result the prepare and transfer methods share. */
async function signPriced(
  ctx: FeeContext,
  signer: SolanaSigner | undefined,
  priced: PricedTransaction,
  feeToken: string,
) {
  const key = requireSigner(ctx, signer);
  await checkRelayerBalance(ctx, priced.cost);
  const signed = await ctx.chain.signComposed(priced.composed.transaction, key, solanaApproval(ctx.chain, ctx.relayer));
  return {
    transaction: signed.transaction,
    fee_in_spl: priced.quote.feeInSpl.toString(),
    fee_in_lamports: priced.quote.feeInLamports.toString(),
    fee_token: feeToken,
    valid_until_blockheight: Number(priced.composed.lastValidBlockHeight),
  };
}

export async function prepareTransaction(ctx: FeeContext, signer: SolanaSigner | undefined, params: unknown) {
  const { transaction, fee_token } = readParams(params, ['transaction', 'fee_token']);
  const tx = ctx.chain.inspect(transaction);
  await checkUserTransaction(ctx, tx, address(fee_token!, 'token mint'));
  const user = userPays(ctx.policy);
  const priced = await priceWithFee(
    ctx,
    tx.feePayer,
    fee_token!,
    user ? userInstructions(ctx, tx) : tx.instructions.map((i) => i.spec),
    user,
  );
  return signPriced(ctx, signer, priced, fee_token!);
}

/** The reference's account policies for one address (allowed_accounts, disallowed_accounts). */
function checkAccount(ctx: FeeContext, account: string): void {
  if (ctx.policy.allowed_accounts && !ctx.policy.allowed_accounts.includes(account))
    throw policyViolation(`Account ${account} not allowed`);
  if (ctx.policy.disallowed_accounts?.includes(account))
    throw policyViolation(`Account ${account} is explicitly disallowed`);
}

export async function transferTransaction(ctx: FeeContext, signer: SolanaSigner | undefined, params: unknown) {
  const p = readParams(params, ['amount', 'token', 'source', 'destination'], ['amount']);
  const [source, destination, token] = [
    address(p.source!, 'source'),
    address(p.destination!, 'destination'),
    address(p.token!, 'token mint'),
  ];
  for (const account of [source, destination]) checkAccount(ctx, account);
  checkAllowedToken(token, ctx.policy);
  const amount = BigInt(p.amount!);
  if (amount === 0n) throw invalidTransaction('Amount must be greater than 0');
  const mint = await ctx.chain.mint(token);
  if (!mint) throw invalidParams(`Invalid token mint address: ${token} is not an SPL token mint`);
  const transfer = await tokenTransfer(ctx, source, destination, mint, amount);
  const priced = await priceWithFee(ctx, source, token, transfer, userPays(ctx.policy));
  return signPriced(ctx, signer, priced, token);
}
