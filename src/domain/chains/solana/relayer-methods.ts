// The reference's own JSON-RPC methods of a Solana relayer (its `rpc` route answers them itself, not the node):
// signTransaction (as fee payer), getSupportedTokens and getFeaturesEnabled; the fee-token methods are not offered.
import { AppError } from '../../../errors.ts';
import type { JsonRpcAnswer } from '../views.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import type { RelayerSigning } from '../../signers/signing.ts';
import type { Signer } from '../../signers/ports.ts';

type Outcome = Pick<JsonRpcAnswer, 'result' | 'error'>;

// Methods the reference's Solana relayer answers itself; the last four pay fees in SPL tokens or send.
const OWN = new Set(['signTransaction', 'getSupportedTokens', 'getFeaturesEnabled']);
const NOT_OFFERED: Record<string, string> = {
  feeEstimate: 'fee payment in SPL tokens is not offered by this relayer: it pays the fee itself',
  prepareTransaction: 'fee payment in SPL tokens is not offered by this relayer: it pays the fee itself',
  transferTransaction: 'fee payment in SPL tokens is not offered by this relayer: it pays the fee itself',
  signAndSendTransaction: 'send it with POST /api/v1/relayers/{relayer_id}/transactions ({ "transaction": "<base64>" }): the relayer signs as fee payer and tracks it',
};

export const isSolanaRelayerMethod = (method: string): boolean => OWN.has(method) || method in NOT_OFFERED;

const invalidParams = (description: string): Outcome => ({ error: { code: -32602, message: 'INVALID_PARAMS', description } });

/** Answers one of the methods above; `isSolanaRelayerMethod(method)` must hold. */
export async function solanaRelayerMethod(signing: RelayerSigning, relayer: RelayerRow, signer: Signer, method: string, params: unknown): Promise<Outcome> {
  if (method in NOT_OFFERED) return { error: { code: -32601, message: 'UNSUPPORTED_METHOD', description: `'${method}': ${NOT_OFFERED[method]}` } };
  if (method === 'getFeaturesEnabled') return { result: { features: ['gasless'] } };
  // Fee tokens come from a relayer's allowed_tokens policy; none is configured, so none is supported.
  if (method === 'getSupportedTokens') return { result: { tokens: [] } };
  const transaction = (params as { transaction?: unknown } | undefined)?.transaction;
  if (typeof transaction !== 'string' || transaction === '') return invalidParams('params must be { "transaction": "<base64 wire transaction>" }');
  try {
    return { result: await signing.signTransaction(relayer, signer, { kind: 'solana', transaction }) };
  } catch (err) {
    if (err instanceof AppError && err.status === 400) return invalidParams(err.reason);
    throw err;
  }
}
