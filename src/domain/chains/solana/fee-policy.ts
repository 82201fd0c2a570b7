// The relayer policies for fees paid in SPL tokens (the reference's RelayerSolanaPolicy): who pays, which tokens,
// margins and slippage; and the checks a user's transaction passes before the relayer signs it, pure.
import type { RelayerRow } from '../../relayers/ports.ts';
import { checkSolanaPolicy, type SolanaPolicy } from '../../transactions/solana/policy.ts';
import type { InspectedSolanaTransaction } from './ports.ts';
import { policyViolation, SolanaRpcRefusal } from './rpc-errors.ts';

export const NATIVE_SOL = '11111111111111111111111111111111';
export const WRAPPED_SOL_MINT = 'So11111111111111111111111111111111111111112';
export const SOL_DECIMALS = 9;
/** The reference's DEFAULT_CONVERSION_SLIPPAGE_PERCENTAGE. */
export const DEFAULT_SLIPPAGE_PERCENT = 1;

export interface AllowedToken {
  mint: string;
  decimals?: number;
  symbol?: string;
  /** Most of this token (smallest units) one fee transfer to the relayer may be. */
  max_allowed_fee?: number | string;
  swap_config?: { slippage_percentage?: number; min_amount?: number; max_amount?: number; retain_min_amount?: number };
}

export interface SwapConfig {
  strategy?: 'jupiter-swap' | 'jupiter-ultra' | 'noop';
  cron_schedule?: string;
  min_balance_threshold?: number | string;
  jupiter_swap_options?: {
    priority_fee_max_lamports?: number;
    priority_level?: string;
    dynamic_compute_unit_limit?: boolean;
  };
}

export interface FeePolicy extends SolanaPolicy {
  fee_payment_strategy?: 'user' | 'relayer';
  fee_margin_percentage?: number;
  allowed_tokens?: AllowedToken[];
  swap_config?: SwapConfig;
}

export const feePolicy = (relayer: RelayerRow): FeePolicy => (relayer.policies ?? {}) as FeePolicy;

/**
 * Users pay unless the policy says `relayer`: an absent (or null) field is `user`, the reference's default
 * (`SolanaFeePaymentStrategy::default()`, applied where it is used; the stored policy is left without the field).
 */
export const userPays = (policy: FeePolicy): boolean => policy.fee_payment_strategy !== 'relayer';

export const tokensConfigured = (policy: FeePolicy): boolean => (policy.allowed_tokens?.length ?? 0) > 0;
export const allowedToken = (policy: FeePolicy, mint: string): AllowedToken | undefined =>
  policy.allowed_tokens?.find((t) => t.mint === mint);
export const slippageOf = (token: AllowedToken | undefined): number =>
  token?.swap_config?.slippage_percentage ?? DEFAULT_SLIPPAGE_PERCENT;

/** With allowed_tokens set, only those; unset or empty, every token (the reference's rule). */
export function checkAllowedToken(mint: string, policy: FeePolicy): void {
  if (tokensConfigured(policy) && !allowedToken(policy, mint))
    throw policyViolation(`Token ${mint} not allowed for transfers`);
}

/** Accounts, programs, signatures and size, read from the transaction before anything is signed. */
export function checkTransactionShape(tx: InspectedSolanaTransaction, policy: FeePolicy): void {
  checkSolanaPolicy(
    { programs: tx.programs, accounts: tx.accounts, requiredSignatures: tx.signers.length, size: tx.size, fee: null },
    policy,
  );
}

/**
 * Nothing in a user's transaction may move the relayer's funds: no SOL transfer from it, no token transfer from
 * its accounts, and no other instruction naming it at all (the fee payer signs and is writable, so any program
 * given its account could spend from it). The one exception is creating an associated token account (paid by the
 * relayer, or its own), whose rent the fee quote includes. Lookup tables are refused: their accounts cannot be read here.
 */
export function checkRelayerFunds(tx: InspectedSolanaTransaction, relayer: string): void {
  if (tx.lookupAccounts > 0)
    throw policyViolation(
      'address lookup tables are not supported when users pay fees in tokens; send a legacy message or a v0 message without lookups',
    );
  tx.instructions.forEach((ix, index) => {
    const p = ix.parsed;
    if (p.type === 'system_transfer' && p.from === relayer)
      throw policyViolation('Lamports transfers are not allowed from the relayer account');
    if (p.type === 'token_transfer' && (p.source === relayer || p.authority === relayer))
      throw policyViolation('Relayer account cannot be source');
    // Creating an associated token account (the relayer's own, or paid by it): the relayer only as payer or owner.
    if (p.type === 'create_ata' && ix.accounts.every((a, i) => i === 0 || i === 2 || a.address !== relayer)) return;
    if (ix.program === relayer || ix.accounts.some((a) => a.address === relayer)) {
      throw policyViolation(
        `instruction ${index} (program ${ix.program}) uses the relayer account ${relayer}; a user's transaction may only pay the relayer`,
      );
    }
  });
}

/** The fee with the policy's margin, as the reference rounds it (down). */
export function withMargin(lamports: bigint, policy: FeePolicy): bigint {
  const margin = policy.fee_margin_percentage;
  if (margin == null || margin === 0) return lamports;
  return BigInt(Math.floor(Number(lamports) * (1 + margin / 100)));
}

/** The reference's max_allowed_fee_lamports check on the fee the relayer pays. */
export function checkMaxFee(lamports: bigint, policy: FeePolicy): void {
  if (policy.max_allowed_fee_lamports != null && lamports > BigInt(policy.max_allowed_fee_lamports)) {
    throw policyViolation(`Fee amount ${lamports} exceeds max allowed fee amount ${policy.max_allowed_fee_lamports}`);
  }
}

export const invalidParams = (reason: string) => new SolanaRpcRefusal('INVALID_PARAMS', reason);
