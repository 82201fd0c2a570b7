// The checks a user's transaction passes before the relayer pays for it (the reference's gasless_transaction_validation
// and validate_user_fee_payment_transaction), before anything is signed: nothing in it may act for the relayer or move
// its funds, and it pays the relayer the fee in an allowed token, at least what the order book says the fee costs now.
import { FeeBumpTransaction, StrKey, type Operation, type Transaction } from '@stellar/stellar-base';
import { ValidationError } from '../../../errors.ts';
import type { StellarChain } from '../../chains/stellar/ports.ts';
import { refuseSorobanGas } from './soroban-gas.ts';
import {
  assetId,
  checkAllowedToken,
  checkTokenMaxFee,
  tokenAsset,
  xlmFeeToToken,
  type StellarFeePolicy,
} from './fee-token.ts';

/** The reference's StellarTransactionValidationError::ValidationError text. */
const invalid = (why: string) => new ValidationError(`Validation error: ${why}`);
const MAX_OPERATIONS = 100;
/** The network's base fee per operation, as the reference estimates classic fees. */
export const BASE_FEE = 100n;

type Chain = Pick<StellarChain, 'account' | 'strictSendPath'>;

function checkOperation(op: Operation, i: number, relayer: string): void {
  // Ours: an operation sourced from the relayer would spend the relayer's funds (the reference leaves it to the signatures).
  if (op.source === relayer)
    throw invalid(
      `Operation ${i}: its source account is the relayer (${relayer}); a gasless transaction may not act for the relayer`,
    );
  switch (op.type) {
    case 'accountMerge':
      if (op.destination === relayer) throw invalid('Account merge operations targeting the relayer are not allowed');
      throw invalid(`Operation ${i}: AccountMerge operations are not allowed`);
    case 'setOptions':
      throw invalid(`Operation ${i}: SetOptions operations are not allowed`);
    case 'createAccount':
    case 'allowTrust':
      throw invalid(`Operation ${i}: Deprecated operation type not allowed`);
    case 'invokeHostFunction':
      refuseSorobanGas(`Operation ${i} is a contract call`);
  }
}

/** Not expired, already valid; with `maxValidityMs` (signing for a user who pays), bounded and not valid for longer. */
function checkTimeBounds(tx: Transaction, now: number, maxValidityMs?: number): void {
  const nowS = Math.floor(now / 1000);
  if (!tx.timeBounds) {
    if (maxValidityMs !== undefined) throw invalid('Transaction must have time bounds set');
    return;
  }
  const max = Number(tx.timeBounds.maxTime);
  const min = Number(tx.timeBounds.minTime);
  if (max !== 0 && nowS > max) throw invalid(`Transaction has expired: max_time=${max}, current_time=${nowS}`);
  if (min > 0 && nowS < min) throw invalid(`Transaction is not yet valid: min_time=${min}, current_time=${nowS}`);
  if (maxValidityMs === undefined) return;
  if (max === 0) throw invalid('Transaction has unbounded validity (max_time=0), but bounded validity is required');
  // A long validity would let the user wait for the token's price to move against the relayer.
  if (max * 1000 - now > maxValidityMs)
    throw invalid(
      `Transaction validity duration (${max - nowS} s) exceeds maximum allowed duration (${maxValidityMs / 1000} s)`,
    );
}

/** Structure, operations, the source's sequence number on the network, time bounds. */
export async function checkGasless(
  tx: Transaction | FeeBumpTransaction,
  relayer: string,
  chain: Chain,
  now = Date.now(),
  maxValidityMs?: number,
): Promise<Transaction> {
  if (tx instanceof FeeBumpTransaction)
    throw invalid('Fee-bump transactions are not supported for gasless transactions');
  if (tx.source === relayer)
    throw invalid(
      'Transaction source account cannot be the relayer address. This is a security measure to prevent relayer fund drainage.',
    );
  if (tx.operations.length === 0) throw invalid('Transaction must contain at least one operation');
  if (tx.operations.length > MAX_OPERATIONS)
    throw invalid(`Transaction contains too many operations: ${tx.operations.length} (maximum is ${MAX_OPERATIONS})`);
  tx.operations.forEach((op, i) => checkOperation(op, i, relayer));
  // A muxed source (M…) is refused plainly rather than looked up as an account.
  if (!StrKey.isValidEd25519PublicKey(tx.source))
    throw invalid(
      `Failed to get account sequence: the source account ${tx.source} is not a G… account (muxed sources are not supported)`,
    );
  const account = await chain.account(tx.source);
  if (!account) throw invalid(`Failed to get account sequence: account ${tx.source} not found`);
  const sequence = BigInt(tx.sequence);
  if (sequence <= account.sequence) {
    throw invalid(
      `Transaction sequence number ${sequence} is invalid. Account's current sequence is ${account.sequence}. The transaction sequence must be strictly greater than the account's current sequence.`,
    );
  }
  checkTimeBounds(tx, now, maxValidityMs);
  return tx;
}

/** The user's balance of the fee token covers the fee. */
export async function checkUserBalance(chain: Chain, user: string, token: string, required: bigint): Promise<void> {
  const asset = tokenAsset(token);
  const account = await chain.account(user, [asset]);
  let balance: bigint;
  if (asset.type === 'native') balance = account?.balance ?? 0n;
  else {
    const line = account?.balances.find((b) => b.asset.type !== 'native' && assetId(b.asset) === token);
    if (!line)
      throw invalid(
        `Failed to fetch user balance for token ${token}: No trustline found for asset ${token} on account ${user}`,
      );
    balance = line.balance;
  }
  if (balance < required)
    throw invalid(
      `Insufficient balance: user has ${balance} ${token} but needs ${required} ${token} for transaction fee`,
    );
}

/** Payments to the relayer: the fee payments (a muxed M… destination is another destination, as in the reference). */
function relayerPayments(tx: Transaction, relayer: string): Array<{ token: string; amount: bigint }> {
  return tx.operations.flatMap((op) => {
    if (op.type !== 'payment' || op.destination !== relayer) return [];
    const [whole, frac = ''] = op.amount.split('.');
    const token = op.asset.isNative() ? 'native' : `${op.asset.getCode()}:${op.asset.getIssuer()}`;
    return [{ token, amount: BigInt(whole!) * 10_000_000n + BigInt(frac.padEnd(7, '0')) }];
  });
}

/**
 * A user transaction a relayer whose users pay is asked to fee-bump or sign: gasless checks, then exactly one payment
 * to the relayer, in an allowed token, within its max_allowed_fee, at least the fee priced now (its operations plus the
 * fee bump at the base fee, with the margin), and the user holds it.
 */
export async function checkUserFeePayment(
  tx: Transaction | FeeBumpTransaction,
  relayer: string,
  policy: StellarFeePolicy,
  chain: Chain,
  maxValidityMs?: number,
): Promise<void> {
  const inner = await checkGasless(tx, relayer, chain, Date.now(), maxValidityMs);
  const payments = relayerPayments(inner, relayer);
  if (payments.length === 0) throw invalid('Gasless transactions must include a fee payment operation to the relayer');
  if (payments.length > 1)
    throw invalid(
      `Gasless transactions must include exactly one fee payment operation to the relayer, found ${payments.length}`,
    );
  const { token, amount } = payments[0]!;
  checkAllowedToken(token, policy);
  checkTokenMaxFee(token, amount, policy);
  const required = BASE_FEE * BigInt(inner.operations.length) + BASE_FEE;
  const quote = await xlmFeeToToken(chain, policy, required, token);
  if (amount < quote.feeInToken)
    throw new ValidationError(`Insufficient token payment: expected ${quote.feeInToken}, got ${amount}`);
  await checkUserBalance(chain, inner.source, token, quote.feeInToken);
}

/** The reference's limit on what sign-transaction signs for a user who pays: valid for at most two minutes. */
export const SIGN_MAX_VALIDITY_MS = 120_000;
