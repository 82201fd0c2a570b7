// Stellar transactions (request shape C): network, operations or XDR, memo, fee bump and max fee rules.
import { FeeBumpTransaction, StrKey, TransactionBuilder } from '@stellar/stellar-base';
import type { StellarChain, StellarMemoSpec, StellarOperationSpec } from '../../chains/stellar/ports.ts';
import type { NetworkConfig } from '../../../config/config.ts';
import { ValidationError } from '../../../errors.ts';
import { checkValidUntil } from '../valid-until.ts';
import { checkSignedAuthEntry } from './soroban-gas.ts';

/** Shape C after schema validation (operation and memo forms: the Stellar port's). */
export interface StellarBody {
  network: string;
  operations?: StellarOperationSpec[] | null;
  transaction_xdr?: string | null;
  source_account?: string | null;
  memo?: StellarMemoSpec | null;
  valid_until?: string | null;
  fee_bump?: boolean | null;
  max_fee?: number | string | null;
  /** Soroban gas abstraction: checked, then refused with the reason (soroban-gas.ts). */
  signed_auth_entry?: string | null;
}

export const DEFAULT_MAX_FEE = 1_000_000n;
/** Amounts as decimal strings in the record (exact above 2^53). */
function normalizeOperation(op: StellarOperationSpec): StellarOperationSpec {
  switch (op.type) {
    case 'payment':
      return { ...op, amount: BigInt(op.amount).toString() };
    case 'create_account':
      return { ...op, starting_balance: BigInt(op.starting_balance).toString() };
    case 'change_trust':
      return op.limit === undefined ? op : { ...op, limit: BigInt(op.limit).toString() };
    default:
      return op;
  }
}

const normalizeMemo = (memo: StellarMemoSpec): StellarMemoSpec =>
  memo.type === 'id' ? { type: 'id', value: BigInt(memo.value).toString() } : memo;

function decodeXdr(xdr: string, passphrase: string): { signed: boolean } {
  try {
    const tx = TransactionBuilder.fromXDR(xdr, passphrase);
    return {
      signed:
        tx.signatures.length > 0 || (tx instanceof FeeBumpTransaction && tx.innerTransaction.signatures.length > 0),
    };
  } catch (err) {
    throw new ValidationError(
      `'transaction_xdr' is not a Stellar transaction envelope in base64 XDR: ${(err as Error).message}`,
    );
  }
}

/**
 * The record's fields for a new send, checked without the network: `checkOperations` is the Stellar port's pure check
 * (operations and memo as they will be built). hash, transaction_xdr (signed), fee and sequence_number are set when signed.
 */
export function stellarRecordFields(
  body: StellarBody,
  relayerNetwork: string,
  network: NetworkConfig,
  from: string,
  checkOperations?: StellarChain['checkOperations'],
  now = Date.now(),
) {
  if (body.network !== relayerNetwork)
    throw new ValidationError(`'network' must be '${relayerNetwork}', the relayer's network (got '${body.network}')`);
  checkSignedAuthEntry(body);
  const hasOps = body.operations !== undefined && body.operations !== null;
  const hasXdr = body.transaction_xdr !== undefined && body.transaction_xdr !== null;
  if (hasOps === hasXdr) throw new ValidationError("exactly one of 'operations' and 'transaction_xdr' is required");
  if (body.source_account != null && !StrKey.isValidEd25519PublicKey(body.source_account)) {
    throw new ValidationError(`'source_account' must be a valid Stellar account (G...)`);
  }
  if (hasXdr) {
    const decoded = decodeXdr(body.transaction_xdr!, network.passphrase!);
    if (body.fee_bump && !decoded.signed) throw new ValidationError("'fee_bump' requires a signed 'transaction_xdr'");
    if (!body.fee_bump && decoded.signed)
      throw new ValidationError(
        "'transaction_xdr' is signed: send it with fee_bump: true for the relayer to pay for it, or unsigned for the relayer to sign it",
      );
    if (body.memo != null)
      throw new ValidationError("'memo' applies to 'operations' only; a 'transaction_xdr' carries its own memo");
  } else {
    if (body.fee_bump) throw new ValidationError("'fee_bump' is only valid with a signed 'transaction_xdr'");
    checkOperations?.(body.operations!, body.memo);
  }
  if (body.source_account != null && hasOps && body.source_account !== from) {
    throw new ValidationError(
      `'source_account' ${body.source_account} does not match the relayer's address ${from}: the relayer signs and pays for this transaction`,
    );
  }
  return {
    from,
    network: body.network,
    source_account: body.source_account ?? from,
    operations: hasOps ? body.operations!.map(normalizeOperation) : null,
    // The request's XDR until signed; then the signed envelope.
    transaction_xdr: hasXdr ? body.transaction_xdr : null,
    memo: body.memo == null ? null : normalizeMemo(body.memo),
    valid_until: body.valid_until == null ? null : checkValidUntil(body.valid_until, now),
    fee_bump: body.fee_bump ?? false,
    max_fee: (body.max_fee == null ? DEFAULT_MAX_FEE : BigInt(body.max_fee)).toString(),
    hash: null,
    fee: null,
    sequence_number: null,
  };
}
