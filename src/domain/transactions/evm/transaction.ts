// EVM transactions (request shape A): semantic checks, real signing (viem serializes, the relayer's signer signs), and
// the record fields.
import {
  bytesToHex,
  isAddress,
  keccak256,
  serializeSignature,
  serializeTransaction,
  type Hex,
  type TransactionSerializable,
} from 'viem';
import { ValidationError } from '../../../errors.ts';
import { checksummed } from './address.ts';
import { resolvePricing, type FeeSource, type PreviousPrices, type Pricing, type Speed } from './pricing.ts';
import { checkValidUntil } from '../valid-until.ts';

/** Shape A after schema validation: integers are JSON numbers or decimal strings. */
export interface EvmBody {
  value: number | string;
  to?: string;
  data?: string;
  gas_limit?: number | string | null;
  gas_price?: number | string;
  max_fee_per_gas?: number | string;
  max_priority_fee_per_gas?: number | string;
  speed?: Speed;
  valid_until?: string;
}

export interface EvmPrepared {
  to: Hex | null;
  data: Hex | null;
  value: bigint;
  gasLimit: bigint;
  pricing: Pricing;
  speed: Speed | null;
  validUntil: string | null;
}

export interface EvmSigned {
  raw: Hex;
  hash: Hex;
  signature: { r: Hex; s: Hex; v: number; sig: Hex };
}

const big = (v: number | string | undefined) => (v === undefined ? undefined : BigInt(v));

/** Without a gas_limit: 21,000 for a plain transfer; with data, plus 16 gas per data byte and 100,000 for execution. */
function defaultGasLimit(data: Hex | null): bigint {
  if (!data || data === '0x') return 21_000n;
  return 21_000n + 16n * BigInt((data.length - 2) / 2) + 100_000n;
}

function checkTo(to: string): Hex {
  if (!isAddress(to, { strict: false }))
    throw new ValidationError(`'to' must be a 20-byte hex address (0x + 40 hex digits)`);
  // A wrong EIP-55 checksum is accepted, as the reference accepts it (the relay logs it: hasWrongChecksum).
  return checksummed(to);
}

/** Gas for a call without a `gas_limit` (the chain's estimate); without one, defaultGasLimit. */
export type GasSource = (call: { to: Hex | null; data: Hex | null; value: bigint }) => Promise<bigint>;

export async function prepareEvm(
  body: EvmBody,
  fees: FeeSource,
  previous?: PreviousPrices,
  now = Date.now(),
  gas?: GasSource,
): Promise<EvmPrepared> {
  if (body.to === undefined && body.data === undefined)
    throw new ValidationError("at least one of 'to' and 'data' is required");
  const to = body.to === undefined ? null : checkTo(body.to);
  const data = body.data === undefined ? null : (body.data.toLowerCase() as Hex);
  const validUntil = body.valid_until === undefined ? null : checkValidUntil(body.valid_until, now);
  const pricing = await resolvePricing(
    {
      gas_price: big(body.gas_price),
      max_fee_per_gas: big(body.max_fee_per_gas),
      max_priority_fee_per_gas: big(body.max_priority_fee_per_gas),
      speed: body.speed,
    },
    fees,
    previous,
  );
  const value = BigInt(body.value);
  const given = body.gas_limit === undefined || body.gas_limit === null ? undefined : BigInt(body.gas_limit);
  const gasLimit = given ?? (gas ? await gas({ to, data, value }) : defaultGasLimit(data));
  return { to, data, value, gasLimit, pricing, speed: body.speed ?? null, validUntil };
}

function serializable(chainId: number, nonce: number, p: EvmPrepared): TransactionSerializable {
  const common = {
    chainId,
    nonce,
    gas: p.gasLimit,
    value: p.value,
    ...(p.to ? { to: p.to } : {}),
    ...(p.data ? { data: p.data } : {}),
  };
  return p.pricing.type === 'legacy'
    ? { ...common, type: 'legacy', gasPrice: p.pricing.gasPrice }
    : {
        ...common,
        type: 'eip1559',
        maxFeePerGas: p.pricing.maxFeePerGas,
        maxPriorityFeePerGas: p.pricing.maxPriorityFeePerGas,
      };
}

/** The transaction as it will be signed, without its signature (what an OP-stack gas price oracle prices). */
export const unsignedEvm = (chainId: number, nonce: number, p: EvmPrepared): Hex =>
  serializeTransaction(serializable(chainId, nonce, p));

/** Signs a 32-byte digest: 65 bytes r ‖ s ‖ v, v 27 or 28 (the Signer port's signEvmDigest). */
export type EvmDigestSign = (digest: Uint8Array) => Promise<Uint8Array>;

/**
 * Signs for real: legacy with EIP-155 replay protection, or EIP-1559 (type 2). viem serializes and
 * hashes; the relayer's signer signs the digest.
 */
export async function signEvm(
  signDigest: EvmDigestSign,
  chainId: number,
  nonce: number,
  p: EvmPrepared,
): Promise<EvmSigned> {
  const tx = serializable(chainId, nonce, p);
  const digest = keccak256(serializeTransaction(tx), 'bytes');
  const signature = await signDigest(digest);
  const r = bytesToHex(signature.subarray(0, 32));
  const s = bytesToHex(signature.subarray(32, 64));
  const yParity = signature[64]! - 27;
  const raw = serializeTransaction(tx, { r, s, yParity, v: 27n + BigInt(yParity) });
  // v as it is in the raw transaction: EIP-155 (chainId * 2 + 35 + parity) for legacy, the parity for type 2.
  const v = p.pricing.type === 'legacy' ? chainId * 2 + 35 + yParity : yParity;
  return { raw, hash: keccak256(raw), signature: { r, s, v, sig: serializeSignature({ r, s, yParity }) } };
}

/** gas_limit is an integer in the record; above 2^53 it is kept exact as a decimal string. */
export const exactInteger = (n: bigint): number | string =>
  n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();

/** Wei the sender may spend: value plus gas_limit at the highest price it offers. */
export function maxCost(p: EvmPrepared): bigint {
  return p.value + p.gasLimit * (p.pricing.type === 'legacy' ? p.pricing.gasPrice : p.pricing.maxFeePerGas);
}

export function evmRecordFields(p: EvmPrepared, signed: EvmSigned, nonce: number, from: string) {
  const legacy = p.pricing.type === 'legacy';
  return {
    from,
    to: p.to,
    data: p.data,
    value: p.value.toString(),
    gas_limit: exactInteger(p.gasLimit),
    gas_price: p.pricing.type === 'legacy' ? p.pricing.gasPrice.toString() : null,
    max_fee_per_gas: p.pricing.type === 'eip1559' ? p.pricing.maxFeePerGas.toString() : null,
    max_priority_fee_per_gas: p.pricing.type === 'eip1559' ? p.pricing.maxPriorityFeePerGas.toString() : null,
    nonce,
    hash: signed.hash,
    signature: signed.signature,
    speed: p.speed,
    valid_until: p.validUntil,
    tx_type: legacy ? 'legacy' : 'eip1559',
    raw: signed.raw,
  };
}
