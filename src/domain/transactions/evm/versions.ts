// New signed versions of an EVM transaction under the same (or a new) nonce: fee bumps, NOOPs, re-nonces.
// Every version's hash is kept in `hashes`; the NOOPs' hashes also in `noop_hashes`, which decides how it ends.
import type { FeeSuggestions, Hex } from '../../chains/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import { evmRecordFields, signEvm, type EvmDigestSign, type EvmPrepared, type EvmSigned } from './transaction.ts';
import { applyFeeCap, minimumBump, speedPricing, topPrice, type Pricing, type Speed } from './pricing.ts';
import { isWaitingAtCap } from './fee-cap-wait.ts';

/** Who signs (the relayer's signer, never its key), for which chain, under which fee cap. */
export interface EvmSigner {
  signDigest: EvmDigestSign;
  chainId: number;
  address: string;
  /** The relayer's `gas_price_cap` (wei) as its row was read; null: none. No signature offers more. */
  feeCap: bigint | null;
}

/** The EVM-only fields of a record, as stored. */
export interface EvmRecord extends TransactionRecord {
  from: string;
  to: string | null;
  data: string | null;
  value: string;
  gas_limit: number | string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  nonce: number;
  hash: string;
  hashes: string[];
  /** Hashes of the NOOPs (zero-value self-transfers) sent in its place: a cancel, or `valid_until` passed. */
  noop_hashes: string[];
  /** True once a cancel was asked (the reference's field): it ends `canceled` if a NOOP is what was mined. */
  is_canceled: boolean;
  /** When the newest version (`raw`) was signed: re-pricing counts from here. */
  signed_at: string;
  speed: Speed | null;
  valid_until: string | null;
  raw: Hex;
}

export const asEvm = (record: TransactionRecord) => record as EvmRecord;

/** The newest version's content and prices, read back from the record. */
export function preparedOf(r: EvmRecord): EvmPrepared {
  const pricing: Pricing =
    r.gas_price !== null
      ? { type: 'legacy', gasPrice: BigInt(r.gas_price) }
      : {
          type: 'eip1559',
          maxFeePerGas: BigInt(r.max_fee_per_gas!),
          maxPriorityFeePerGas: BigInt(r.max_priority_fee_per_gas!),
        };
  return {
    to: r.to as Hex | null,
    data: r.data as Hex | null,
    value: BigInt(r.value),
    gasLimit: BigInt(r.gas_limit),
    pricing,
    speed: r.speed,
    validUntil: r.valid_until,
  };
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Both fee fields raised by at least `max(old × 1.1, old + 1)`, and to the network's current price for the
 * speed when that is higher (a base fee that rose needs more than 10%); then held to the relayer's fee cap
 * (`feeCap`), which wins over the bump: at the cap the result may not beat `old` (see raisesPrice).
 */
export function bumpPricing(old: Pricing, fees: FeeSuggestions | null, speed: Speed, feeCap: bigint | null): Pricing {
  const now = fees ? speedPricing(speed, fees) : null;
  if (old.type === 'legacy')
    return applyFeeCap(
      { type: 'legacy', gasPrice: max(minimumBump(old.gasPrice), now?.type === 'legacy' ? now.gasPrice : 0n) },
      feeCap,
    );
  const tip = max(minimumBump(old.maxPriorityFeePerGas), now?.type === 'eip1559' ? now.maxPriorityFeePerGas : 0n);
  const cap = max(minimumBump(old.maxFeePerGas), now?.type === 'eip1559' ? now.maxFeePerGas : 0n);
  return applyFeeCap({ type: 'eip1559', maxPriorityFeePerGas: tip, maxFeePerGas: max(cap, tip) }, feeCap);
}

/**
 * A network without a pool (network-kind.ts) has no replacement rule to beat: a resubmission is priced at the
 * network's current price for its speed (as the reference does), held to the fee cap. Without an answer from the
 * node, the old prices stay.
 */
function marketPricing(old: Pricing, fees: FeeSuggestions | null, speed: Speed, feeCap: bigint | null): Pricing {
  return applyFeeCap(fees ? speedPricing(speed, fees) : old, feeCap);
}

/** The re-pricing of a resubmission or a NOOP: the market price on a network without a pool, else the bump. */
export function repricing(
  noPool: boolean,
  old: Pricing,
  fees: FeeSuggestions | null,
  speed: Speed,
  feeCap: bigint | null,
): Pricing {
  return noPool ? marketPricing(old, fees, speed, feeCap) : bumpPricing(old, fees, speed, feeCap);
}

export function samePricing(a: Pricing, b: Pricing): boolean {
  if (a.type === 'legacy' || b.type === 'legacy') return a.type === b.type && topPrice(a) === topPrice(b);
  return a.maxFeePerGas === b.maxFeePerGas && a.maxPriorityFeePerGas === b.maxPriorityFeePerGas;
}

/** A zero-value transfer to the sender itself: the cheapest transaction that uses a nonce (21,000 gas but on Arbitrum). */
export function noopPrepared(from: string, pricing: Pricing, gasLimit = 21_000n): EvmPrepared {
  return { to: from as Hex, data: null, value: 0n, gasLimit, pricing, speed: null, validUntil: null };
}

/**
 * Every EVM transaction the relayer signs is signed here, its prices held to the signer's fee cap first (the
 * callers price under it already; this is the backstop, e.g. for a cap lowered since). Returns what was signed.
 */
export async function signUnderCap(
  signer: EvmSigner,
  nonce: number,
  prepared: EvmPrepared,
): Promise<{ prepared: EvmPrepared; signed: EvmSigned }> {
  const pricing = applyFeeCap(prepared.pricing, signer.feeCap);
  const capped = pricing === prepared.pricing ? prepared : { ...prepared, pricing };
  return { prepared: capped, signed: await signEvm(signer.signDigest, signer.chainId, nonce, capped) };
}

const appended = (list: string[] | undefined, hash: string) =>
  (list ?? []).includes(hash) ? (list ?? []) : [...(list ?? []), hash];

/** The record with a new version signed: content, prices and nonce from `prepared`/`nonce`, hash appended. */
export async function withVersion(
  r: EvmRecord,
  signer: EvmSigner,
  nonce: number,
  prepared: EvmPrepared,
  options: { noop?: boolean; keepSpeed?: boolean } = {},
): Promise<EvmRecord> {
  const { prepared: p, signed } = await signUnderCap(signer, nonce, prepared);
  const fields = evmRecordFields(p, signed, nonce, signer.address);
  return {
    ...r,
    ...fields,
    // A new version leaves the wait at the fee cap (the re-pricing that signed it says so again if it still binds).
    ...(isWaitingAtCap(r) ? { status_reason: null } : {}),
    // A NOOP keeps the request's speed and validity: they still describe what was asked.
    speed: options.keepSpeed || options.noop ? r.speed : fields.speed,
    valid_until: options.keepSpeed || options.noop ? r.valid_until : fields.valid_until,
    // The same content at the same (capped) price signs to the same hash: listed once.
    hashes: appended(r.hashes, signed.hash),
    noop_hashes: options.noop ? appended(r.noop_hashes, signed.hash) : (r.noop_hashes ?? []),
    signed_at: new Date().toISOString(),
  };
}

/** The newest version is a NOOP (a cancel or an expiry is under way). */
export const isNoop = (r: EvmRecord) => (r.noop_hashes ?? []).includes(r.hash);
