// What a transaction costs the relayer in lamports, and that cost in a fee token at the price source's quote
// (the reference's estimate_fee_with_margin and get_fee_token_quote).
import { AppError } from '../../../errors.ts';
import type { InspectedSolanaTransaction, SolanaChain } from './ports.ts';
import {
  allowedToken,
  NATIVE_SOL,
  SOL_DECIMALS,
  slippageOf,
  tokensConfigured,
  withMargin,
  WRAPPED_SOL_MINT,
  type FeePolicy,
} from './fee-policy.ts';
import { SolanaRpcRefusal } from './rpc-errors.ts';

/** Lamports per signature when the node no longer knows the transaction's blockhash to price it. */
const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Bytes of a token account: the rent of each one the relayer creates is part of the fee. */
const TOKEN_ACCOUNT_BYTES = 165;

export interface FeeQuote {
  /** The fee in the token's smallest unit. */
  feeInSpl: bigint;
  /** The same in whole tokens, as a decimal string. */
  feeInSplUi: string;
  feeInLamports: bigint;
  /** Tokens per SOL, in whole units. */
  conversionRate: number;
  slippagePercent: number;
}

/** An exact decimal string of `amount` with `decimals` places, trailing zeros dropped. */
function toUiAmount(amount: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? (amount / scale).toString() : `${amount / scale}.${fraction}`;
}

const plain = (n: number) => n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });

/** The network fee of the message plus the rent of each token account it creates at the relayer's cost, with the margin. */
export async function relayerCost(
  chain: SolanaChain,
  tx: InspectedSolanaTransaction,
  relayer: string,
  policy: FeePolicy,
): Promise<bigint> {
  const created = tx.instructions.filter((ix) => ix.parsed.type === 'create_ata' && ix.parsed.payer === relayer).length;
  const estimation = (err: unknown) => {
    throw err instanceof AppError && err.code === 'CHAIN_UNAVAILABLE'
      ? new SolanaRpcRefusal('ESTIMATION_ERROR', err.reason)
      : err;
  };
  const [fee, rent] = await Promise.all([
    chain.feeForMessage(tx.message),
    created > 0 ? chain.rentExemption(TOKEN_ACCOUNT_BYTES) : 0n,
  ]).catch(estimation);
  const networkFee = fee ?? LAMPORTS_PER_SIGNATURE * BigInt(tx.signers.length);
  return withMargin(networkFee + BigInt(created) * rent, policy);
}

/** Decimals of an allowed token: the policy's, else the mint's on chain. */
export async function tokenDecimals(chain: SolanaChain, policy: FeePolicy, mint: string): Promise<number> {
  const configured = allowedToken(policy, mint)?.decimals;
  if (configured !== undefined) return configured;
  const onChain = await chain.mint(mint);
  if (!onChain)
    throw new SolanaRpcRefusal('TOKEN_ACCOUNT', `Failed to fetch mint account: ${mint} is not an SPL token mint`);
  return onChain.decimals;
}

/** `lamports` in `mint` at the price source's quote (SOL and wrapped SOL 1:1); refused for a token not allowed. */
export async function quoteFee(
  chain: SolanaChain,
  policy: FeePolicy,
  mint: string,
  lamports: bigint,
): Promise<FeeQuote> {
  if (mint === NATIVE_SOL || mint === WRAPPED_SOL_MINT) {
    return {
      feeInSpl: lamports,
      feeInSplUi: toUiAmount(lamports, SOL_DECIMALS),
      feeInLamports: lamports,
      conversionRate: 1,
      slippagePercent: 0,
    };
  }
  const token = allowedToken(policy, mint);
  if (tokensConfigured(policy) && !token)
    throw new SolanaRpcRefusal('UNSUPPORTED_FEE_TOKEN', `Token ${mint} not allowed`);
  const slippagePercent = slippageOf(token);
  const decimals = await tokenDecimals(chain, policy, mint);
  let quote;
  try {
    quote = await chain.dex.quote(WRAPPED_SOL_MINT, mint, lamports, slippagePercent);
  } catch (err) {
    throw err instanceof AppError && err.code === 'CHAIN_UNAVAILABLE'
      ? new SolanaRpcRefusal('ESTIMATION_ERROR', err.reason)
      : err;
  }
  const tokens = Number(quote.outAmount) / 10 ** decimals;
  const sol = Number(quote.inAmount) / 10 ** SOL_DECIMALS;
  return {
    feeInSpl: quote.outAmount,
    feeInSplUi: toUiAmount(quote.outAmount, decimals),
    feeInLamports: lamports,
    conversionRate: sol === 0 ? 0 : tokens / sol,
    slippagePercent,
  };
}

export const formatRate = plain;
