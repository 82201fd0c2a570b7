// Fees paid in SPL tokens (the relayer's policy `fee_payment_strategy: "user"`): the fee transfer to the relayer is
// put first in a user's transaction, priced at the quote with the margin, and a transaction the relayer is asked to
// sign is checked to pay it, under the policies, before the signer is called.
import { ValidationError } from '../../../errors.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import { checkSolanaBalance } from '../../transactions/solana/policy.ts';
import type {
  ComposedSolanaTransaction,
  InspectedSolanaTransaction,
  SolanaChain,
  SolanaInstructionSpec,
  SplMint,
} from './ports.ts';
import {
  allowedToken,
  checkAllowedToken,
  checkMaxFee,
  checkRelayerFunds,
  checkTransactionShape,
  invalidParams,
  type FeePolicy,
} from './fee-policy.ts';
import { quoteFee, relayerCost, tokenDecimals, type FeeQuote } from './fee-quote.ts';
import { SolanaRpcRefusal, policyViolation } from './rpc-errors.ts';
import { checkTokenTransfers, paymentsToRelayer } from './token-checks.ts';

export interface FeeContext {
  chain: SolanaChain;
  relayer: RelayerRow;
  policy: FeePolicy;
}

/** A transaction ready for the relayer's signature, with what it costs and what it pays. */
export interface PricedTransaction {
  composed: ComposedSolanaTransaction;
  quote: FeeQuote;
  /** Lamports the relayer pays (margin included). */
  cost: bigint;
}

/** The reference's texts when the relayer would go below its min_balance. */
export async function checkRelayerBalance(ctx: FeeContext, cost: bigint): Promise<void> {
  const balance = await ctx.chain.balance(ctx.relayer.address);
  try {
    checkSolanaBalance(balance, cost, ctx.policy);
  } catch (err) {
    if (err instanceof ValidationError)
      throw new SolanaRpcRefusal('INSUFFICIENT_FUNDS', `Insufficient balance: ${err.reason}`);
    throw err;
  }
}

/** The fee token as a mint the chain knows, its decimals the policy's when set. */
async function feeMint(ctx: FeeContext, mint: string): Promise<SplMint> {
  const found = await ctx.chain.mint(mint);
  if (!found)
    throw new SolanaRpcRefusal('TOKEN_ACCOUNT', `Failed to fetch mint account: ${mint} is not an SPL token mint`);
  return { ...found, decimals: await tokenDecimals(ctx.chain, ctx.policy, mint) };
}

/**
 * `amount` of `mint` from `owner` to `recipient`: refused when `owner` holds less (the reference's text); the
 * recipient's associated account is created, paid by the relayer, when it does not exist yet.
 */
export async function tokenTransfer(
  ctx: FeeContext,
  owner: string,
  recipient: string,
  mint: SplMint,
  amount: bigint,
): Promise<SolanaInstructionSpec[]> {
  const [source, destination] = await Promise.all([
    ctx.chain.associatedTokenAddress(owner, mint),
    ctx.chain.associatedTokenAddress(recipient, mint),
  ]);
  const [held, existing] = await Promise.all([ctx.chain.tokenAccount(source), ctx.chain.tokenAccount(destination)]);
  if (!held) throw new SolanaRpcRefusal('TOKEN_ACCOUNT', `${owner} has no token account for ${mint.address}`);
  if (held.amount < amount)
    throw new SolanaRpcRefusal(
      'INSUFFICIENT_FUNDS',
      `Insufficient token balance: required ${amount} but found ${held.amount}`,
    );
  return ctx.chain.splTransfer({
    owner,
    recipient,
    mint,
    amount,
    payer: ctx.relayer.address,
    createRecipient: !existing,
  });
}

/**
 * The user pays: a draft with a 1-unit fee transfer sets the message's shape, its cost is quoted, and the final
 * message carries the quoted fee (the reference's two-pass build). Relayer pays: `instructions` alone, quoted.
 */
export async function priceWithFee(
  ctx: FeeContext,
  payer: string,
  feeToken: string,
  instructions: SolanaInstructionSpec[],
  userPays: boolean,
): Promise<PricedTransaction> {
  const mint = userPays ? await feeMint(ctx, feeToken) : null;
  const build = async (amount: bigint | null) => {
    const fee = amount === null || !mint ? [] : await tokenTransfer(ctx, payer, ctx.relayer.address, mint, amount);
    return ctx.chain.compose([...fee, ...instructions], ctx.relayer.address);
  };
  const draft = await build(userPays ? 1n : null);
  const cost = await relayerCost(ctx.chain, ctx.chain.inspect(draft.transaction), ctx.relayer.address, ctx.policy);
  const quote = await quoteFee(ctx.chain, ctx.policy, feeToken, cost);
  const composed = userPays ? await build(quote.feeInSpl) : draft;
  checkMaxFee(cost, ctx.policy);
  const cap = allowedToken(ctx.policy, feeToken)?.max_allowed_fee;
  if (userPays && cap != null && quote.feeInSpl > BigInt(cap))
    throw policyViolation(`Transfer amount ${quote.feeInSpl} exceeds max fee allowed ${cap} for token ${feeToken}`);
  return { composed, quote, cost };
}

/** A user's transaction (the user as fee payer) for feeEstimate and prepareTransaction: checked, its instructions kept. */
export async function checkUserTransaction(
  ctx: FeeContext,
  tx: InspectedSolanaTransaction,
  feeToken: string,
): Promise<void> {
  checkTransactionShape(tx, ctx.policy);
  checkAllowedToken(feeToken, ctx.policy);
  checkRelayerFunds(tx, ctx.relayer.address);
  await checkTokenTransfers(ctx.chain, tx, ctx.policy, ctx.relayer.address);
}

/** The user's instructions, to be paid by the relayer; refused when the relayer is already its fee payer. */
export function userInstructions(ctx: FeeContext, tx: InspectedSolanaTransaction): SolanaInstructionSpec[] {
  if (tx.feePayer === ctx.relayer.address) throw invalidParams('Relayer cannot pay fee to itself');
  return tx.instructions.map((ix) => ix.spec);
}

/** The least of `quote` a payment may be: the quote less its slippage (the price may move between quote and send). */
const leastAccepted = (quote: FeeQuote) =>
  quote.feeInSpl - (quote.feeInSpl * BigInt(Math.round(quote.slippagePercent * 100))) / 10_000n;

/**
 * Before the relayer signs a user's transaction (signTransaction, signAndSendTransaction, a send): the relayer pays
 * its fee, nothing in it moves the relayer's funds, its token transfers obey the policy, and it pays the relayer at
 * least the quoted fee (SOL, or an allowed token within its slippage). Returns the relayer's cost in lamports.
 */
export async function checkUserPayment(ctx: FeeContext, wire: string): Promise<bigint> {
  const tx = ctx.chain.inspect(wire);
  if (tx.feePayer !== ctx.relayer.address)
    throw policyViolation(`Fee payer ${tx.feePayer} does not match relayer address ${ctx.relayer.address}`);
  checkTransactionShape(tx, ctx.policy);
  checkRelayerFunds(tx, ctx.relayer.address);
  await checkTokenTransfers(ctx.chain, tx, ctx.policy, ctx.relayer.address);
  const cost = await relayerCost(ctx.chain, tx, ctx.relayer.address, ctx.policy);
  let paid = false;
  for (const payment of await paymentsToRelayer(ctx.chain, tx, ctx.policy, ctx.relayer.address)) {
    if (
      payment.mint === null
        ? payment.amount >= cost
        : payment.amount >= leastAccepted(await quoteFee(ctx.chain, ctx.policy, payment.mint, cost))
    ) {
      paid = true;
      break;
    }
  }
  if (!paid)
    throw invalidParams(
      "Transaction doesn't contain required fee payment instruction or payment amount is insufficient",
    );
  checkMaxFee(cost, ctx.policy);
  await checkRelayerBalance(ctx, cost);
  return cost;
}

/**
 * The `rpc` methods signTransaction and signAndSendTransaction where the relayer pays (the reference validates these
 * whatever the strategy): its policies, no lamports from the relayer, token transfers under the policy, the fee (with
 * the margin) under max_allowed_fee_lamports and its min_balance kept. The signing gate checks again as it signs.
 */
export async function checkRelayerPaidTransaction(ctx: FeeContext, wire: string): Promise<bigint> {
  const tx = ctx.chain.inspect(wire);
  // The chain's text as it refuses to sign for another fee payer.
  if (tx.feePayer !== ctx.relayer.address)
    throw invalidParams(`Transaction fee payer ${tx.feePayer} does not match relayer address ${ctx.relayer.address}`);
  checkTransactionShape(tx, ctx.policy);
  for (const ix of tx.instructions) {
    if (ix.parsed.type === 'system_transfer' && ix.parsed.from === ctx.relayer.address)
      throw policyViolation('Lamports transfers are not allowed from the relayer account');
  }
  await checkTokenTransfers(ctx.chain, tx, ctx.policy, ctx.relayer.address);
  const cost = await relayerCost(ctx.chain, tx, ctx.relayer.address, ctx.policy);
  checkMaxFee(cost, ctx.policy);
  await checkRelayerBalance(ctx, cost);
  return cost;
}
