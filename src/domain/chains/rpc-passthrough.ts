// The relayer's `rpc` route: a read-only JSON-RPC request passed to the relayer's own network, answered in JSON-RPC.
import { AppError } from '../../errors.ts';
import type { RawRpcAnswer } from './ports.ts';
import type { RelayerChains } from './reads.ts';
import type { JsonRpcAnswer, JsonRpcId } from './views.ts';
import type { RelayerRow } from '../relayers/ports.ts';
import { refusal, RPC_READS } from './rpc-methods.ts';
import type { RelayerSigning } from '../signers/signing.ts';
import type { Signer } from '../signers/ports.ts';
import { isSolanaRelayerMethod, solanaRelayerMethod, type SolanaMethodDeps } from './solana/relayer-methods.ts';

/** A validated request: `id` null is kept (and left out of the answer), absent is 1, as the reference. */
export interface RpcRequest {
  id: JsonRpcId | null;
  method: string;
  params?: unknown;
}

// JSON-RPC 2.0's code for an unknown method, and the reference's code for an upstream that did not answer.
const METHOD_NOT_FOUND = -32601;
const BAD_GATEWAY = -33002;

function answer(id: JsonRpcId | null, body: Pick<JsonRpcAnswer, 'result' | 'error'>): JsonRpcAnswer {
  return { jsonrpc: '2.0', ...body, ...(id === null ? {} : { id }) };
}

function rawRequest(
  chains: RelayerChains,
  relayer: RelayerRow,
): (method: string, params: unknown) => Promise<RawRpcAnswer> {
  switch (relayer.network_type) {
    case 'evm':
      return chains.evm(relayer).rawRequest;
    case 'solana':
      return chains.solana(relayer).rawRequest;
    case 'stellar':
      return chains.stellar(relayer).rawRequest;
  }
}

export function createRelayerRpc(deps: {
  chains: RelayerChains;
  signing: RelayerSigning;
  signer: (relayer: RelayerRow) => Signer;
  send?: SolanaMethodDeps['send'] | undefined;
}): (relayer: RelayerRow, request: RpcRequest) => Promise<JsonRpcAnswer> {
  const { chains } = deps;
  const send =
    deps.send ??
    (() => Promise.reject(new AppError('NOT_IMPLEMENTED', { reason: 'signAndSendTransaction is not wired here' })));
  const solana: SolanaMethodDeps = { signing: deps.signing, chain: chains.solana, send };
  return async (relayer, { id, method, params }) => {
    if (relayer.network_type === 'solana' && isSolanaRelayerMethod(method))
      return answer(id, await solanaRelayerMethod(solana, relayer, deps.signer(relayer), method, params));
    if (!RPC_READS[relayer.network_type].has(method)) {
      return answer(id, {
        error: {
          code: METHOD_NOT_FOUND,
          message: 'Method not found',
          description: refusal(relayer.network_type, method),
        },
      });
    }
    let node: RawRpcAnswer;
    try {
      node = await rawRequest(chains, relayer)(method, params);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'CHAIN_UNAVAILABLE') throw err;
      return answer(id, { error: { code: BAD_GATEWAY, message: 'Bad gateway', description: err.reason } });
    }
    if ('result' in node) return answer(id, { result: node.result });
    // The node's own error, as it sent it; `description` repeats its message (the reference's error shape has one).
    return answer(id, {
      error: {
        code: node.error.code,
        message: node.error.message,
        description: node.error.message,
        ...(node.error.data !== undefined ? { data: node.error.data } : {}),
      },
    });
  };
}
