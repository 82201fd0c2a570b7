// Fees paid in a token on Stellar: the fee_token identifier, the relayer's policy fields for it (allowed_tokens,
// max_fee, max_allowed_fee, fee_margin_percentage) and the XLM fee priced in the token from the order book.
// Texts are the reference's (StellarTransactionValidator, convert_xlm_fee_to_token).
import { StrKey } from '@stellar/stellar-base';
import { ValidationError } from '../../../errors.ts';
import type { StellarAssetSpec, StellarChain } from '../../chains/stellar/ports.ts';

export interface AllowedToken {
  asset: string;
  max_allowed_fee?: number;
  metadata?: { decimals?: number };
  swap_config?: { slippage_percentage?: number; min_amount?: number; max_amount?: number; retain_min_amount?: number };
}

/** The reference's Stellar policy fields for fees paid by users. */
export interface StellarFeePolicy {
  fee_payment_strategy?: 'user' | 'relayer';
  allowed_tokens?: AllowedToken[];
  max_fee?: number;
  fee_margin_percentage?: number;
  slippage_percentage?: number;
}

/** What the user pays: the token amount (its smallest unit), for the XLM fee the relayer pays (margin included). */
export interface FeeQuote {
  feeInToken: bigint;
  feeInTokenUi: string;
  feeInStroops: bigint;
  conversionRate: number;
}

export const isNativeToken = (token: string) => token === 'native' || token === 'XLM' || token === '';
export const isContractToken = (token: string) => token.startsWith('C') && token.length === 56 && !token.includes(':');

const invalid = (why: string) => new ValidationError(`Invalid fee_token structure: Invalid asset identifier: ${why}`);

/** The reference's fee_token rules: `native` (or `XLM`), `CODE:ISSUER`, or a contract address `C…`. */
export function checkFeeTokenStructure(token: string): void {
  if (isNativeToken(token)) return;
  if (isContractToken(token)) {
    if (StrKey.isValidContract(token)) return;
    throw invalid(`Invalid contract address format: ${token} (must be 56 characters and valid StrKey)`);
  }
  const parts = token.split(':');
  if (parts.length !== 2)
    throw invalid(`Invalid fee_token format: ${token}. Expected 'native', 'CODE:ISSUER', or contract address (C...)`);
  const [code, issuer] = parts as [string, string];
  if (code.length === 0 || code.length > 12)
    throw invalid(`Invalid asset code length: ${code} (must be 1-12 characters)`);
  if (issuer.length !== 56) throw invalid(`Invalid issuer address length: ${issuer} (must be 56 characters)`);
  if (!issuer.startsWith('G')) throw invalid(`Invalid issuer address prefix: ${issuer} (must start with 'G')`);
  if (!StrKey.isValidEd25519PublicKey(issuer))
    throw invalid(`Invalid issuer address format: ${issuer} (must be a valid Stellar public key)`);
  if (!/^[A-Za-z0-9]+$/.test(code)) throw invalid(`Invalid asset code: ${code} (letters and digits only)`);
}

/** A classic fee token as an asset; call checkFeeTokenStructure first (a contract token is not one). */
export function tokenAsset(token: string): StellarAssetSpec {
  if (isNativeToken(token)) return { type: 'native' };
  const [code, issuer] = token.split(':') as [string, string];
  return { type: code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12', code, issuer };
}

/** An asset as the reference names it: `native` or `CODE:ISSUER`. */
export const assetId = (a: StellarAssetSpec) => (a.type === 'native' ? 'native' : `${a.code}:${a.issuer}`);

const tokenEntry = (policy: StellarFeePolicy, token: string) => policy.allowed_tokens?.find((t) => t.asset === token);

/** No allowed_tokens (or an empty list): every token is allowed, as in the reference. */
export function checkAllowedToken(token: string, policy: StellarFeePolicy): void {
  const allowed = policy.allowed_tokens ?? [];
  if (allowed.length === 0) return;
  if (token === 'native' || token === '') {
    if (!allowed.some((t) => t.asset === 'native' || t.asset === ''))
      throw new ValidationError('Token not allowed: Native XLM not in allowed tokens list');
    return;
  }
  if (!allowed.some((t) => t.asset === token))
    throw new ValidationError(`Token not allowed: Token ${token} not in allowed tokens list`);
}

/** The token's decimals from its allowed_tokens metadata; Stellar's 7 otherwise. */
export const tokenDecimals = (policy: StellarFeePolicy, token: string): number =>
  tokenEntry(policy, token)?.metadata?.decimals ?? 7;

/** The policy's max_fee (stroops) caps what the relayer pays. */
export function checkMaxFee(stroops: bigint, policy: StellarFeePolicy): void {
  if (policy.max_fee != null && stroops > BigInt(policy.max_fee))
    throw new ValidationError(`Max fee exceeded: ${stroops}`);
}

/** The token's max_allowed_fee caps what the user pays (token units). */
export function checkTokenMaxFee(token: string, amount: bigint, policy: StellarFeePolicy): void {
  const max = tokenEntry(policy, token)?.max_allowed_fee;
  if (max != null && amount > BigInt(max)) throw new ValidationError(`Max fee exceeded: ${amount}`);
}

/** The reference's UI amount: `amount / 10^decimals` in decimal, trailing zeros dropped ("0.0045", "2", "0"). */
function uiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const text = `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/0+$/, '').replace(/\.$/, '');
  return text || '0';
}

/** A ratio in plain decimal notation (never `1e-7`), as the reference prints it. */
export function plainNumber(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** fee_margin_percentage applied as the reference does (truncated to whole stroops). */
function withMargin(xlmFee: bigint, policy: StellarFeePolicy): bigint {
  const margin = policy.fee_margin_percentage;
  return margin == null ? xlmFee : BigInt(Math.floor(Number(xlmFee) * (1 + margin / 100)));
}

/**
 * The XLM fee (stroops, margin added) priced in the token: what selling that much XLM buys on the order book now
 * (Horizon strict-send), as the reference's order-book strategy does. Native: the fee itself.
 */
export async function xlmFeeToToken(
  chain: Pick<StellarChain, 'strictSendPath'>,
  policy: StellarFeePolicy,
  xlmFee: bigint,
  token: string,
): Promise<FeeQuote> {
  const fee = withMargin(xlmFee, policy);
  if (isNativeToken(token))
    return { feeInToken: fee, feeInTokenUi: uiAmount(fee, 7), feeInStroops: fee, conversionRate: 1 };
  const decimals = tokenDecimals(policy, token);
  const path = await chain.strictSendPath({ type: 'native' }, fee, tokenAsset(token), {
    source: 7,
    destination: decimals,
  });
  if (!path)
    throw new ValidationError(
      `Failed to get quote: No path found for conversion (no order book path from XLM to ${token})`,
    );
  const out = path.destinationAmount;
  return {
    feeInToken: out,
    feeInTokenUi: uiAmount(out, decimals),
    feeInStroops: fee,
    conversionRate: fee > 0n ? Number(out) / Number(fee) : 0,
  };
}
