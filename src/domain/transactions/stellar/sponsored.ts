// Stellar sponsored transactions (the reference's classic gas abstraction): the user's transaction, from XDR or from
// operations, priced in a token from the order book (quote), then with the fee payment to the relayer added and time
// bounds set (build) for the user to sign. The signed result comes back through the send path with fee_bump: true,
// where gasless-checks.ts checks the payment again before the relayer signs its fee bump.
import {
  Account,
  Asset,
  type FeeBumpTransaction,
  Operation,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-base';
import { ValidationError } from '../../../errors.ts';
import type { StellarChain, StellarChains, StellarOperationSpec } from '../../chains/stellar/ports.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import type { SponsoredFamily } from '../../sponsored/ports.ts';
import { checkGasless, checkUserBalance, BASE_FEE } from './gasless-checks.ts';
import {
  checkAllowedToken,
  checkFeeTokenStructure,
  checkMaxFee,
  checkTokenMaxFee,
  isContractToken,
  plainNumber,
  tokenAsset,
  xlmFeeToToken,
  type FeeQuote,
  type StellarFeePolicy,
} from './fee-token.ts';
import { refuseSorobanGas } from './soroban-gas.ts';

/** The reference's validity of a built sponsored transaction: two minutes to sign and send. */
const SPONSORED_VALIDITY_MS = 120_000;

interface SponsoredBody {
  transaction_xdr?: string;
  operations?: StellarOperationSpec[];
  source_account?: string;
  fee_token: string;
}

export interface StellarSponsoredDeps {
  chains: StellarChains;
  now?: () => number;
}

/** The reference's request rules (FeeEstimateRequestParams::validate), its texts. */
function checkRequest(body: SponsoredBody): void {
  checkFeeTokenStructure(body.fee_token);
  const hasOps = (body.operations?.length ?? 0) > 0;
  const hasXdr = body.transaction_xdr !== undefined;
  if (hasOps && hasXdr) throw new ValidationError('Cannot provide both transaction_xdr and operations');
  if (!hasOps && !hasXdr) throw new ValidationError('Must provide either transaction_xdr or operations');
  if (hasOps && !body.source_account) throw new ValidationError('source_account is required when providing operations');
}

/** A Soroban token is refused as not offered before it is looked up in allowed_tokens (the clearer answer). */
function checkToken(token: string, policy: StellarFeePolicy): void {
  checkFeeTokenStructure(token);
  if (isContractToken(token)) refuseSorobanGas(`fee_token ${token} is a Soroban token contract`);
  checkAllowedToken(token, policy);
}

/** The user's transaction: the XDR as given, or the operations from the source account's next sequence number. */
async function userTransaction(chain: StellarChain, body: SponsoredBody): Promise<Transaction | FeeBumpTransaction> {
  if (body.transaction_xdr !== undefined) {
    try {
      return TransactionBuilder.fromXDR(body.transaction_xdr, chain.passphrase);
    } catch (err) {
      throw new ValidationError(`Failed to parse XDR: ${(err as Error).message}`);
    }
  }
  const source = body.source_account!;
  let ops: string[];
  try {
    ops = chain.encodeOperations(body.operations!);
  } catch (err) {
    throw new ValidationError(`Invalid operations: ${(err as ValidationError).reason ?? (err as Error).message}`);
  }
  if (!StrKey.isValidEd25519PublicKey(source))
    throw new ValidationError("'source_account' must be a valid Stellar account (G...)");
  const account = await chain.account(source);
  if (!account)
    throw new ValidationError(
      `Failed to fetch account sequence number for ${source}: the account does not exist on this network`,
    );
  const builder = new TransactionBuilder(new Account(source, account.sequence.toString()), {
    fee: BASE_FEE.toString(),
    networkPassphrase: chain.passphrase,
    timebounds: { minTime: 0, maxTime: 0 },
  });
  for (const op of ops) builder.addOperation(xdr.Operation.fromXDR(op, 'base64'));
  return builder.build();
}

/** The quote: the user's operations, the fee payment and the fee bump at the base fee, priced in the token; every cap checked. */
async function priced(
  chain: StellarChain,
  relayer: RelayerRow,
  policy: StellarFeePolicy,
  body: SponsoredBody,
  now: number,
): Promise<{ tx: Transaction; quote: FeeQuote }> {
  checkRequest(body);
  checkToken(body.fee_token, policy);
  const parsed = await userTransaction(chain, body);
  let tx: Transaction;
  try {
    tx = await checkGasless(parsed, relayer.address, chain, now);
  } catch (err) {
    if (err instanceof ValidationError)
      throw new ValidationError(`Failed to validate gasless transaction: ${err.reason}`);
    throw err;
  }
  const xlmFee = BASE_FEE * BigInt(tx.operations.length) + 2n * BASE_FEE;
  const quote = await xlmFeeToToken(chain, policy, xlmFee, body.fee_token);
  checkMaxFee(quote.feeInStroops, policy);
  checkTokenMaxFee(body.fee_token, quote.feeInToken, policy);
  await checkUserBalance(chain, tx.source, body.fee_token, quote.feeInToken);
  return { tx, quote };
}

/** The user's transaction with the fee payment to the relayer added (its fee: the base fee per operation) and time bounds. */
function withFeePayment(tx: Transaction, relayer: string, token: string, amount: bigint, maxTime: number): Transaction {
  const spec = tokenAsset(token);
  const asset = spec.type === 'native' ? Asset.native() : new Asset(spec.code, spec.issuer);
  // Classic amounts are int64 units written with 7 decimals, whatever decimals the token's metadata shows.
  const payment = Operation.payment({
    destination: relayer,
    asset,
    amount: `${amount / 10_000_000n}.${(amount % 10_000_000n).toString().padStart(7, '0')}`,
  });
  return TransactionBuilder.cloneFrom(tx, { fee: BASE_FEE.toString(), timebounds: { minTime: 0, maxTime } })
    .addOperation(payment)
    .build();
}

export function createStellarSponsored(deps: StellarSponsoredDeps): SponsoredFamily {
  const now = deps.now ?? Date.now;
  const context = (relayer: RelayerRow) => ({
    chain: deps.chains.stellar(relayer.network),
    policy: (relayer.policies ?? {}) as StellarFeePolicy,
  });
  return {
    async quote(relayer, raw) {
      const { chain, policy } = context(relayer);
      const { quote } = await priced(chain, relayer, policy, raw as unknown as SponsoredBody, now());
      return {
        fee_in_token_ui: quote.feeInTokenUi,
        fee_in_token: quote.feeInToken.toString(),
        conversion_rate: plainNumber(quote.conversionRate),
      };
    },
    async build(relayer, raw) {
      const body = raw as unknown as SponsoredBody;
      const { chain, policy } = context(relayer);
      checkToken(body.fee_token, policy);
      if (policy.fee_payment_strategy !== 'user')
        throw new ValidationError('Gas abstraction requires fee_payment_strategy: User');
      const { tx, quote } = await priced(chain, relayer, policy, body, now());
      // A payment of 0 is malformed on Stellar: a fee worth less than one unit of the token cannot be collected.
      if (quote.feeInToken <= 0n)
        throw new ValidationError(
          `the fee (${quote.feeInStroops} stroops) is worth less than one unit of ${body.fee_token} on the order book; it cannot be paid in that token`,
        );
      // Set last, to give the user the whole window to sign.
      const maxTime = Math.floor((now() + SPONSORED_VALIDITY_MS) / 1000);
      const built = withFeePayment(tx, relayer.address, body.fee_token, quote.feeInToken, maxTime);
      return {
        transaction: built.toXDR(),
        fee_in_token: quote.feeInToken.toString(),
        fee_in_token_ui: quote.feeInTokenUi,
        fee_in_stroops: quote.feeInStroops.toString(),
        fee_token: body.fee_token,
        valid_until: new Date(maxTime * 1000).toISOString().replace('.000Z', 'Z'),
      };
    },
  };
}
