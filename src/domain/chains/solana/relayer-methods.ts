// The reference's own JSON-RPC methods of a Solana relayer (its `rpc` route answers them itself, not the node):
// feeEstimate, prepareTransaction, transferTransaction, signTransaction, signAndSendTransaction, getSupportedTokens
// and getFeaturesEnabled. Each result carries its `method`, as the reference's answers do.
import { AppError } from '../../../errors.ts';
import type { JsonRpcAnswer } from '../views.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import type { RelayerSigning } from '../../signers/signing.ts';
import type { Signer } from '../../signers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import type { SolanaChain } from './ports.ts';
import { DEFAULT_SLIPPAGE_PERCENT, feePolicy, invalidParams, userPays } from './fee-policy.ts';
import { feeEstimate, prepareTransaction, transferTransaction } from './fee-methods.ts';
import { jsonRpcError, SolanaRpcRefusal } from './rpc-errors.ts';
import { checkRelayerPaidTransaction, checkUserPayment, type FeeContext } from './user-fee.ts';

type Outcome = Pick<JsonRpcAnswer, 'result' | 'error'>;

export interface SolanaMethodDeps {
  signing: RelayerSigning;
  chain(relayer: RelayerRow): SolanaChain;
  /** A send as POST /transactions makes it (`{ transaction }`): checked, signed, recorded, then sent by its job. */
  send(relayer: RelayerRow, body: { transaction: string }): Promise<TransactionRecord>;
}

const METHODS = new Set([
  'feeEstimate',
  'prepareTransaction',
  'transferTransaction',
  'signTransaction',
  'signAndSendTransaction',
  'getSupportedTokens',
  'getFeaturesEnabled',
]);

export const isSolanaRelayerMethod = (method: string): boolean => METHODS.has(method);

function transactionParam(params: unknown): string {
  const record = params as Record<string, unknown> | undefined;
  const transaction = record?.transaction;
  if (typeof transaction !== 'string' || transaction === '')
    throw invalidParams('params must be { "transaction": "<base64 wire transaction>" }');
  return transaction;
}

function supportedTokens(relayer: RelayerRow) {
  const tokens = (feePolicy(relayer).allowed_tokens ?? []).map((t) => ({
    mint: t.mint,
    symbol: t.symbol ?? '',
    decimals: t.decimals ?? 0,
    ...(t.max_allowed_fee == null ? {} : { max_allowed_fee: Number(t.max_allowed_fee) }),
    conversion_slippage_percentage: t.swap_config?.slippage_percentage ?? DEFAULT_SLIPPAGE_PERCENT,
  }));
  return { tokens };
}

/** The reference's checks of a transaction given to signTransaction or signAndSendTransaction, by fee strategy. */
const checkRpcTransaction = (ctx: FeeContext, transaction: string) =>
  userPays(ctx.policy) ? checkUserPayment(ctx, transaction) : checkRelayerPaidTransaction(ctx, transaction);

async function run(
  deps: SolanaMethodDeps,
  relayer: RelayerRow,
  signer: Signer,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const ctx: FeeContext = { chain: deps.chain(relayer), relayer, policy: feePolicy(relayer) };
  switch (method) {
    case 'getFeaturesEnabled':
      return { features: ['gasless'] };
    case 'getSupportedTokens':
      return supportedTokens(relayer);
    case 'feeEstimate':
      return feeEstimate(ctx, params);
    case 'prepareTransaction':
      return prepareTransaction(ctx, signer.ed25519, params);
    case 'transferTransaction':
      return transferTransaction(ctx, signer.ed25519, params);
    case 'signTransaction': {
      const transaction = transactionParam(params);
      // Policies before the signature, whoever pays: where users pay, the transaction must also pay the relayer.
      await checkRpcTransaction(ctx, transaction);
      return { ...(await deps.signing.signTransaction(relayer, signer, { kind: 'solana', transaction })) };
    }
    default: {
      // signAndSendTransaction: the send path checks the user's payment where users pay; where the relayer pays, the
      // reference's checks of signTransaction come first. Then the send path signs (through the gate) and records it.
      const transaction = transactionParam(params);
      if (!userPays(ctx.policy)) await checkRelayerPaidTransaction(ctx, transaction);
      const record = await deps.send(relayer, { transaction });
      return { transaction: record.transaction, signature: record.signature, id: record.id };
    }
  }
}

/** Answers one of the methods above; `isSolanaRelayerMethod(method)` must hold. */
export async function solanaRelayerMethod(
  deps: SolanaMethodDeps,
  relayer: RelayerRow,
  signer: Signer,
  method: string,
  params: unknown,
): Promise<Outcome> {
  try {
    return { result: { method, ...(await run(deps, relayer, signer, method, params)) } };
  } catch (err) {
    if (err instanceof SolanaRpcRefusal) return { error: jsonRpcError(err.kind, err.reason) };
    if (err instanceof AppError && err.status === 400)
      return {
        error: jsonRpcError(
          /^Policy violation: /.test(err.reason) ? 'PREPARATION_ERROR' : 'INVALID_PARAMS',
          err.reason,
        ),
      };
    if (err instanceof AppError && err.code === 'CHAIN_UNAVAILABLE')
      return { error: jsonRpcError('PROVIDER_ERROR', err.reason) };
    throw err;
  }
}
