// The relayer's Solana policies (the reference's RelayerSolanaPolicy fields we enforce), checked on a signed transaction with the reference's texts.
import { ValidationError } from '../../../errors.ts';
import type { SignedSolanaTransaction } from '../../chains/solana/ports.ts';
import type { RelayerRow } from '../../relayers/ports.ts';

export interface SolanaPolicy {
  allowed_programs?: string[] | null;
  allowed_accounts?: string[] | null;
  disallowed_accounts?: string[] | null;
  max_signatures?: number | null;
  max_tx_data_size?: number | null;
  /** Lamports. */
  max_allowed_fee_lamports?: number | string | null;
  /** Lamports kept in the relayer's account after the fee; the reference's default is 0.01 SOL. */
  min_balance?: number | string | null;
}

export const DEFAULT_SOLANA_MIN_BALANCE = 10_000_000n;
export const DEFAULT_SOLANA_MAX_TX_DATA_SIZE = 1232;

/** The relayer's policies (validated against the reference's Solana policy schema when stored). */
export const solanaPolicy = (relayer: RelayerRow): SolanaPolicy => (relayer.policies ?? {}) as SolanaPolicy;

const violation = (reason: string) => new ValidationError(`Policy violation: ${reason}`);

/** Checks that need only the transaction: programs, accounts, signatures, size, fee cap. */
export function checkSolanaPolicy(
  signed: Pick<SignedSolanaTransaction, 'programs' | 'accounts' | 'requiredSignatures' | 'size' | 'fee'>,
  policy: SolanaPolicy,
): void {
  if (policy.allowed_programs) {
    const denied = signed.programs.find((p) => !policy.allowed_programs!.includes(p));
    if (denied) throw violation(`Program ${denied} not allowed`);
  }
  if (policy.allowed_accounts) {
    const denied = signed.accounts.find((a) => !policy.allowed_accounts!.includes(a));
    if (denied) throw violation(`Account ${denied} not allowed`);
  }
  if (policy.disallowed_accounts) {
    const denied = signed.accounts.find((a) => policy.disallowed_accounts!.includes(a));
    if (denied) throw violation(`Account ${denied} is explicitly disallowed`);
  }
  if (policy.max_signatures != null && signed.requiredSignatures > policy.max_signatures) {
    throw violation(
      `Transaction requires ${signed.requiredSignatures} signatures, which exceeds maximum allowed ${policy.max_signatures}`,
    );
  }
  const maxSize = policy.max_tx_data_size ?? DEFAULT_SOLANA_MAX_TX_DATA_SIZE;
  if (signed.size > maxSize) throw violation(`Transaction size ${signed.size} exceeds maximum allowed ${maxSize}`);
  if (
    policy.max_allowed_fee_lamports != null &&
    signed.fee !== null &&
    signed.fee > BigInt(policy.max_allowed_fee_lamports)
  ) {
    throw violation(`Fee amount ${signed.fee} exceeds max allowed fee amount ${policy.max_allowed_fee_lamports}`);
  }
}

/** The relayer must keep `min_balance` after paying the fee. */
export function checkSolanaBalance(balance: bigint, fee: bigint, policy: SolanaPolicy): void {
  const minBalance = policy.min_balance == null ? DEFAULT_SOLANA_MIN_BALANCE : BigInt(policy.min_balance);
  const required = fee + minBalance;
  if (balance < required) {
    throw new ValidationError(
      `Insufficient relayer balance. Required: ${required}, Available: ${balance}, Fee: ${fee}, Min balance: ${minBalance}`,
    );
  }
}
