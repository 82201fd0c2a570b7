// Stellar transactions (request shape C): network, operations or XDR, memo, fee bump and max fee rules.
import { FeeBumpTransaction, StrKey, TransactionBuilder } from '@stellar/stellar-base';
import type { NetworkConfig } from '../../config.ts';
import { ValidationError } from '../../errors.ts';
import { checkValidUntil } from './valid-until.ts';

type Int = number | string;

export type StellarAsset = { type: 'native' } | { type: 'credit_alphanum4' | 'credit_alphanum12'; code: string; issuer: string };

export type OperationSpec =
  | { type: 'payment'; destination: string; amount: Int; asset: StellarAsset }
  | { type: 'invoke_contract'; contract_address: string; function_name: string; args: unknown[]; auth?: unknown };

export type MemoSpec =
  | { type: 'none' }
  | { type: 'text'; value: string }
  | { type: 'id'; value: Int }
  | { type: 'hash' | 'return'; value: number[] };

/** Shape C after schema validation. */
export interface StellarBody {
  network: string;
  operations?: OperationSpec[] | null;
  transaction_xdr?: string | null;
  source_account?: string | null;
  memo?: MemoSpec | null;
  valid_until?: string | null;
  fee_bump?: boolean | null;
  max_fee?: Int | null;
}

export const DEFAULT_MAX_FEE = 1_000_000n;
const MEMO_TEXT_MAX_BYTES = 28;

function checkAsset(asset: StellarAsset, at: string) {
  if (asset.type === 'native') return asset;
  const length = asset.type === 'credit_alphanum4' ? [1, 4] : [5, 12];
  if (!/^[A-Za-z0-9]+$/.test(asset.code) || asset.code.length < length[0]! || asset.code.length > length[1]!) {
    throw new ValidationError(`'${at}.code' must be ${length[0]}-${length[1]} letters or digits for ${asset.type}`);
  }
  if (!StrKey.isValidEd25519PublicKey(asset.issuer)) throw new ValidationError(`'${at}.issuer' must be a valid Stellar account (G...)`);
  return asset;
}

function normalizeOperation(op: OperationSpec, i: number) {
  const at = `operations.${i}`;
  if (op.type === 'payment') {
    if (!StrKey.isValidEd25519PublicKey(op.destination)) throw new ValidationError(`'${at}.destination' must be a valid Stellar account (G...)`);
    if (BigInt(op.amount) <= 0n) throw new ValidationError(`'${at}.amount' must be greater than 0 (stroops)`);
    return { type: op.type, destination: op.destination, amount: BigInt(op.amount).toString(), asset: checkAsset(op.asset, `${at}.asset`) };
  }
  if (!StrKey.isValidContract(op.contract_address)) throw new ValidationError(`'${at}.contract_address' must be a valid Stellar contract address (C...)`);
  return op;
}

function normalizeMemo(memo: MemoSpec) {
  switch (memo.type) {
    case 'text':
      if (Buffer.byteLength(memo.value, 'utf8') > MEMO_TEXT_MAX_BYTES) throw new ValidationError(`'memo.value' must be at most ${MEMO_TEXT_MAX_BYTES} bytes (UTF-8) for a text memo`);
      return memo;
    case 'id':
      return { type: 'id', value: BigInt(memo.value).toString() };
    default:
      return memo;
  }
}

function decodeXdr(xdr: string, passphrase: string): { hash: string; signed: boolean } {
  try {
    const tx = TransactionBuilder.fromXDR(xdr, passphrase);
    return { hash: tx.hash().toString('hex'), signed: tx.signatures.length > 0 || (tx instanceof FeeBumpTransaction && tx.innerTransaction.signatures.length > 0) };
  } catch (err) {
    throw new ValidationError(`'transaction_xdr' is not a Stellar transaction envelope in base64 XDR: ${(err as Error).message}`);
  }
}

export function stellarRecordFields(body: StellarBody, relayerNetwork: string, network: NetworkConfig, from: string, now = Date.now()) {
  if (body.network !== relayerNetwork) throw new ValidationError(`'network' must be '${relayerNetwork}', the relayer's network (got '${body.network}')`);
  const hasOps = body.operations !== undefined && body.operations !== null;
  const hasXdr = body.transaction_xdr !== undefined && body.transaction_xdr !== null;
  if (hasOps === hasXdr) throw new ValidationError("exactly one of 'operations' and 'transaction_xdr' is required");
  if (body.source_account != null && !StrKey.isValidEd25519PublicKey(body.source_account)) {
    throw new ValidationError(`'source_account' must be a valid Stellar account (G...)`);
  }
  let hash: string | null = null;
  if (hasXdr) {
    const decoded = decodeXdr(body.transaction_xdr!, network.passphrase!);
    if (body.fee_bump && !decoded.signed) throw new ValidationError("'fee_bump' requires a signed 'transaction_xdr'");
    if (body.memo != null) throw new ValidationError("'memo' applies to 'operations' only; a 'transaction_xdr' carries its own memo");
    hash = decoded.hash;
  } else if (body.fee_bump) {
    throw new ValidationError("'fee_bump' is only valid with a signed 'transaction_xdr'");
  }
  return {
    from,
    network: body.network,
    source_account: body.source_account ?? from,
    operations: hasOps ? body.operations!.map(normalizeOperation) : null,
    transaction_xdr: hasXdr ? body.transaction_xdr : null,
    memo: body.memo == null ? null : normalizeMemo(body.memo),
    valid_until: body.valid_until == null ? null : checkValidUntil(body.valid_until, now),
    fee_bump: body.fee_bump ?? false,
    max_fee: (body.max_fee == null ? DEFAULT_MAX_FEE : BigInt(body.max_fee)).toString(),
    hash,
  };
}
