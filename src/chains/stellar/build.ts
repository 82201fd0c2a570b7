// Stellar transactions, pure: operations and memo from request shape C, fees within max_fee, time bounds, signing by the relayer.
import {
  Account,
  Address,
  Asset,
  FeeBumpTransaction,
  Memo,
  Operation,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-base';
import { AppError, ValidationError } from '../../errors.ts';
import type {
  SignedStellarTransaction,
  StellarAssetSpec,
  StellarMemoSpec,
  StellarOperationSpec,
  StellarSigner,
  StellarSigningApproval,
} from '../../domain/chains/stellar/ports.ts';
import { toScVal } from './scval.ts';

/** The network's minimum fee per operation (stroops). */
export const BASE_FEE = 100n;
/** The reference's default validity for operations: two minutes. */
export const DEFAULT_VALIDITY_MS = 120_000;
const MAX_OPERATIONS = 100;
const INT64_MAX = 2n ** 63n - 1n;

const isAccount = (a: string) => StrKey.isValidEd25519PublicKey(a) || StrKey.isValidMed25519PublicKey(a);

function stroops(value: number | string | bigint, at: string, { allowZero = false } = {}): bigint {
  let n: bigint;
  try {
    n = BigInt(value);
  } catch {
    throw new ValidationError(`'${at}' must be an integer amount in stroops`);
  }
  if (n < (allowZero ? 0n : 1n) || n > INT64_MAX)
    throw new ValidationError(
      `'${at}' must be ${allowZero ? 'at least 0' : 'greater than 0'} and at most ${INT64_MAX} (stroops)`,
    );
  return n;
}

/** stellar-base takes amounts as decimal strings with 7 digits (1 XLM = 10,000,000 stroops). */
const toAmount = (n: bigint): string => `${n / 10_000_000n}.${(n % 10_000_000n).toString().padStart(7, '0')}`;

function toAsset(spec: StellarAssetSpec, at: string): Asset {
  if (spec.type === 'native') return Asset.native();
  const [min, max] = spec.type === 'credit_alphanum4' ? [1, 4] : [5, 12];
  if (!/^[A-Za-z0-9]+$/.test(spec.code) || spec.code.length < min || spec.code.length > max) {
    throw new ValidationError(`'${at}.code' must be ${min}-${max} letters or digits for ${spec.type}`);
  }
  if (!StrKey.isValidEd25519PublicKey(spec.issuer))
    throw new ValidationError(`'${at}.issuer' must be a valid Stellar account (G...)`);
  return new Asset(spec.code, spec.issuer);
}

function invokeAuth(
  spec: Extract<StellarOperationSpec, { type: 'invoke_contract' }>,
  args: xdr.InvokeContractArgs,
  at: string,
): xdr.SorobanAuthorizationEntry[] {
  const auth = spec.auth ?? { type: 'source_account' };
  if (auth.type === 'none') return [];
  if (auth.type === 'xdr') {
    return auth.entries.map((e, i) => {
      try {
        return xdr.SorobanAuthorizationEntry.fromXDR(e, 'base64');
      } catch {
        throw new ValidationError(`'${at}.auth.entries.${i}' is not a SorobanAuthorizationEntry in base64 XDR`);
      }
    });
  }
  if (auth.type !== 'source_account')
    throw new ValidationError(
      `'${at}.auth.type' must be none, source_account or xdr (address-based auth is not supported, as in the reference)`,
    );
  const rootInvocation = new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(args),
    subInvocations: [],
  });
  return [
    new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
      rootInvocation,
    }),
  ];
}

export function toOperation(spec: StellarOperationSpec, i: number): xdr.Operation {
  const at = `operations.${i}`;
  switch (spec.type) {
    case 'payment':
      if (!isAccount(spec.destination))
        throw new ValidationError(`'${at}.destination' must be a valid Stellar account (G... or M...)`);
      return Operation.payment({
        destination: spec.destination,
        asset: toAsset(spec.asset, `${at}.asset`),
        amount: toAmount(stroops(spec.amount, `${at}.amount`)),
      });
    case 'create_account':
      if (!StrKey.isValidEd25519PublicKey(spec.destination))
        throw new ValidationError(`'${at}.destination' must be a valid Stellar account (G...)`);
      return Operation.createAccount({
        destination: spec.destination,
        startingBalance: toAmount(stroops(spec.starting_balance, `${at}.starting_balance`)),
      });
    case 'change_trust': {
      if ((spec.asset as StellarAssetSpec | undefined)?.type === 'native')
        throw new ValidationError(`'${at}.asset' must be a credit asset: no trustline exists for the native asset`);
      const limit =
        spec.limit === undefined ? undefined : toAmount(stroops(spec.limit, `${at}.limit`, { allowZero: true }));
      return Operation.changeTrust({
        asset: toAsset(spec.asset, `${at}.asset`),
        ...(limit !== undefined ? { limit } : {}),
      });
    }
    case 'invoke_contract': {
      if (!StrKey.isValidContract(spec.contract_address))
        throw new ValidationError(`'${at}.contract_address' must be a valid Stellar contract address (C...)`);
      if (!/^[A-Za-z0-9_]{1,32}$/.test(spec.function_name))
        throw new ValidationError(`'${at}.function_name' must be 1-32 letters, digits or '_'`);
      const args = spec.args.map((a, j) => toScVal(a, `${at}.args.${j}`));
      const invokeArgs = new xdr.InvokeContractArgs({
        contractAddress: Address.fromString(spec.contract_address).toScAddress(),
        functionName: spec.function_name,
        args,
      });
      return Operation.invokeContractFunction({
        contract: spec.contract_address,
        function: spec.function_name,
        args,
        auth: invokeAuth(spec, invokeArgs, at),
      });
    }
    default:
      throw new ValidationError(`'${at}.type' must be payment, create_account, change_trust or invoke_contract`);
  }
}

function memoBytes(value: number[] | string, at: string): Buffer {
  const bytes =
    typeof value === 'string'
      ? /^[0-9a-fA-F]{64}$/.test(value)
        ? Buffer.from(value, 'hex')
        : null
      : Buffer.from(value);
  if (!bytes || bytes.length !== 32)
    throw new ValidationError(`'${at}' must be 32 bytes (an array of 32 integers, or 64 hex digits)`);
  return bytes;
}

/** Text at most 28 bytes (UTF-8), id an unsigned 64-bit integer, hash/return 32 bytes. */
export function toMemo(spec: StellarMemoSpec | null | undefined): Memo {
  if (!spec || spec.type === 'none') return Memo.none();
  switch (spec.type) {
    case 'text':
      if (Buffer.byteLength(spec.value, 'utf8') > 28)
        throw new ValidationError("'memo.value' must be at most 28 bytes (UTF-8) for a text memo");
      return Memo.text(spec.value);
    case 'id': {
      const id = /^\d+$/.test(String(spec.value)) ? BigInt(spec.value) : -1n;
      if (id < 0n || id > 2n ** 64n - 1n)
        throw new ValidationError("'memo.value' must be an unsigned 64-bit integer for an id memo");
      return Memo.id(id.toString());
    }
    case 'hash':
      return Memo.hash(memoBytes(spec.value, 'memo.value').toString('hex'));
    case 'return':
      return Memo.return(memoBytes(spec.value, 'memo.value').toString('hex'));
    default:
      throw new ValidationError("'memo.type' must be none, text, id, hash or return");
  }
}

/**
 * Fee per operation: the network's recent p90 inclusion fee, at least the minimum (100), lowered to
 * fit `maxFee` (total = perOp × ops + resourceFee). Refused when even the minimum does not fit.
 */
export function feePerOperation(
  suggested: bigint,
  operations: number,
  maxFee: bigint,
  resourceFee = 0n,
  what = 'transaction',
): bigint {
  const minimum = BASE_FEE * BigInt(operations) + resourceFee;
  if (maxFee < minimum)
    throw new ValidationError(`max_fee (${maxFee}) is insufficient. Required ${what} fee: ${minimum}`);
  const wanted = suggested > BASE_FEE ? suggested : BASE_FEE;
  const fits = (maxFee - resourceFee) / BigInt(operations);
  return wanted < fits ? wanted : fits;
}

export interface BuildInput {
  source: string;
  sequence: bigint;
  operations: xdr.Operation[];
  memo: Memo;
  feePerOp: bigint;
  /** Seconds since the epoch; 0: unbounded. */
  maxTime: number;
  passphrase: string;
  /** Soroban: the simulated resources; their resource fee is added to the fee. */
  sorobanData?: xdr.SorobanTransactionData;
}

export function buildTransaction(input: BuildInput): Transaction {
  if (input.operations.length === 0 || input.operations.length > MAX_OPERATIONS)
    throw new ValidationError(`'operations' must hold 1 to ${MAX_OPERATIONS} operations`);
  const builder = new TransactionBuilder(new Account(input.source, (input.sequence - 1n).toString()), {
    fee: input.feePerOp.toString(),
    networkPassphrase: input.passphrase,
    memo: input.memo,
    timebounds: { minTime: 0, maxTime: input.maxTime },
  });
  for (const op of input.operations) builder.addOperation(op);
  if (input.sorobanData) builder.setSorobanData(input.sorobanData);
  return builder.build();
}

/** Soroban operations in a transaction (v0 and v1 envelopes alike). */
const hasSoroban = (tx: Transaction): boolean =>
  tx.operations.some((op) => ['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint'].includes(op.type));

/**
 * The signing gate's approval, then the transaction's hash signed with the relayer's key (stellar-base checks the
 * signature before adding it). `simulated`: this adapter simulated the Soroban call just now.
 */
export async function signWith(
  tx: Transaction | FeeBumpTransaction,
  signer: StellarSigner,
  approval: StellarSigningApproval,
  simulated = false,
): Promise<void> {
  await approve(tx, approval, simulated);
  const signature = await signer.sign(tx.hash());
  tx.addSignature(signer.address, Buffer.from(signature).toString('base64'));
}

/** Envelope XDR and the record fields of a signed transaction or fee bump. */
export function signedResult(tx: Transaction | FeeBumpTransaction): SignedStellarTransaction {
  const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
  const maxTime = Number(inner.timeBounds?.maxTime ?? 0);
  return {
    hash: tx.hash().toString('hex'),
    envelopeXdr: tx.toXDR(),
    source: inner.source,
    sequence: BigInt(inner.sequence),
    fee: BigInt(tx.fee),
    feeBump: tx instanceof FeeBumpTransaction,
    validUntil: maxTime === 0 ? null : new Date(maxTime * 1000),
  };
}

/** Parses a transaction_xdr with the network's passphrase (a wrong passphrase gives another hash, never an error). */
export function parseEnvelope(
  envelope: string,
  passphrase: string,
  field = "'transaction_xdr'",
): Transaction | FeeBumpTransaction {
  try {
    return TransactionBuilder.fromXDR(envelope, passphrase);
  } catch {
    // stellar-base's own words (an XDR reader's) name no field: ours say what is expected.
    throw new ValidationError(
      `${field} is not a Stellar transaction envelope in base64 XDR (it does not decode as a TransactionEnvelope)`,
    );
  }
}

/** The gate's approval of `tx` (for a fee bump: of the inner transaction, paid by its fee source). */
export async function approve(
  tx: Transaction | FeeBumpTransaction,
  approval: StellarSigningApproval,
  simulated = false,
): Promise<void> {
  // The port's types require an approval; a caller typed around them still signs nothing.
  if (typeof approval !== 'function')
    throw new AppError('INTERNAL', { reason: 'a Stellar signature was asked for without the signing gate' });
  const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
  const feeSource = tx instanceof FeeBumpTransaction ? tx.feeSource : tx.source;
  await approval({ envelopeXdr: inner.toXDR(), feeSource, fee: BigInt(tx.fee), soroban: hasSoroban(inner), simulated });
}

/** Whether `ops` hold a Soroban operation (InvokeHostFunction or a footprint one): a Soroban transaction holds exactly one operation, that one. */
export const isSoroban = (ops: xdr.Operation[]) =>
  ops.some((op) => ['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint'].includes(op.body().switch().name));
