// The signing gate: the one door to a relayer's key for a transaction. The chain ports sign only with an approval made
// here (the type checker requires one; test/architecture/imports.test.ts proves no other module makes one), so
// whatever path asks (the send routes, sign-transaction, the `rpc` methods, plugins, sponsored builds, a re-sign),
// the relayer's policies, its balance and a simulation come first. The reference applies its policies on every sign,
// whatever the fee strategy; it simulates before a fee-payer signature too, and so do we, refusing what would fail:
// a signed transaction that fails on chain still costs the fee payer its fee (and pays the relayer nothing).
import type { RelayerRow } from '../relayers/ports.ts';
import type { SigningApproval, SolanaChain, UnsignedSolanaTransaction } from '../chains/solana/ports.ts';
import type { StellarChain, StellarSigningApproval, UnsignedStellarTransaction } from '../chains/stellar/ports.ts';
import { invalidTransaction, SolanaRpcRefusal } from '../chains/solana/rpc-errors.ts';
import { checkSolanaBalance, checkSolanaPolicy, solanaPolicy } from '../transactions/solana/policy.ts';
import { describeSolanaError } from '../transactions/solana/track.ts';
import { ValidationError } from '../../errors.ts';

/** Lamports per signature when the node no longer knows the blockhash to price the message. */
const LAMPORTS_PER_SIGNATURE = 5_000n;

/** What the network charges the fee payer for the message. */
export const solanaFeeOf = (t: { fee: bigint | null; requiredSignatures: number }): bigint =>
  t.fee ?? LAMPORTS_PER_SIGNATURE * BigInt(t.requiredSignatures);

export interface SolanaGateOptions {
  /** The relayer's balance when the caller already asked for it (the send path reads it while the message is built). */
  balance?: Promise<bigint>;
}

/** The relayer would keep less than its min_balance after the fee: the send path's text, the reference's kind. */
function checkBalance(balance: bigint, fee: bigint, relayer: RelayerRow): void {
  try {
    checkSolanaBalance(balance, fee, solanaPolicy(relayer));
  } catch (err) {
    if (err instanceof ValidationError) throw new SolanaRpcRefusal('INSUFFICIENT_FUNDS', err.reason);
    throw err;
  }
}

/**
 * The approval of a Solana fee-payer signature for `relayer`: its policies (allowed and disallowed programs and
 * accounts, max signatures, max tx data size, max_allowed_fee_lamports), its min_balance after the fee, and a
 * simulation of the very transaction to be signed, which must succeed.
 */
export function solanaApproval(
  chain: SolanaChain,
  relayer: RelayerRow,
  options: SolanaGateOptions = {},
): SigningApproval {
  const approve = async (unsigned: UnsignedSolanaTransaction): Promise<void> => {
    checkSolanaPolicy(unsigned, solanaPolicy(relayer));
    // Both asked at once: one round trip's wait, not two.
    const [balance, simulation] = await Promise.all([
      options.balance ?? chain.balance(relayer.address),
      chain.simulate(unsigned.wire),
    ]);
    checkBalance(balance, solanaFeeOf(unsigned), relayer);
    if (simulation.err) {
      const refusal = invalidTransaction(`Transaction simulation failed: ${describeSolanaError(simulation.err)}`);
      // The chain may build again with a fresh blockhash where it chose this one (PreSignCheck, ports.ts).
      throw simulation.err.kind === 'transaction' && simulation.err.error === 'BlockhashNotFound'
        ? Object.assign(refusal, { staleBlockhash: true })
        : refusal;
    }
  };
  return approve as SigningApproval;
}

/** The Stellar policy fields the gate applies where the relayer pays the fee (the send path caps its bid at max_fee). */
interface StellarGatePolicy {
  max_fee?: number | string | null;
  min_balance?: number | string | null;
}

/**
 * The approval of a Stellar signature for `relayer`. Where the relayer pays the fee (the transaction's source, or a
 * fee bump's fee source): at most its max_fee, and its min_balance kept after it. A Soroban call the adapter did not
 * just simulate (a fee bump, or an envelope signed as given) is simulated first and refused when it fails, as the
 * reference simulates before it builds or bumps a Soroban transaction.
 */
export function stellarApproval(
  chain: Pick<StellarChain, 'simulate' | 'account'>,
  relayer: RelayerRow,
): StellarSigningApproval {
  const approve = async (unsigned: UnsignedStellarTransaction): Promise<void> => {
    const policy = (relayer.policies ?? {}) as StellarGatePolicy;
    if (unsigned.feeSource === relayer.address) {
      if (policy.max_fee != null && unsigned.fee > BigInt(policy.max_fee))
        throw new ValidationError(
          `Policy violation: the transaction's fee (${unsigned.fee}) is above the relayer's max_fee (${policy.max_fee})`,
        );
      if (policy.min_balance != null) {
        const available = (await chain.account(relayer.address))?.balance ?? 0n;
        const required = unsigned.fee + BigInt(policy.min_balance);
        if (available < required)
          throw new ValidationError(
            `Insufficient relayer balance. Required: ${required}, Available: ${available}, Fee: ${unsigned.fee}, Min balance: ${policy.min_balance}`,
          );
      }
    }
    if (unsigned.soroban && !unsigned.simulated) {
      const simulation = await chain.simulate(unsigned.envelopeXdr);
      if (!simulation.ok) throw new ValidationError(`Simulation failed: ${simulation.error}`);
    }
  };
  return approve as StellarSigningApproval;
}
