// The relayer chain operations (status, balance, rpc, signing): raw input validated here, then the domain.
import type { RelayerChainOperations } from '../../domain/chains/views.ts';
import type { RelayerChainService } from '../../domain/chains/relayer-chain-service.ts';
import type { RpcRequest } from '../../domain/chains/rpc-passthrough.ts';
import type { RelayerService } from '../../domain/relayers/service.ts';
import type { SignTransactionInput, TypedDataHashes } from '../../domain/signers/signing.ts';
import { ValidationError } from '../../errors.ts';
import { compile } from '../../validation/compile.ts';
import {
  rpcBody,
  signDataBody,
  signEvmBody,
  signSolanaBody,
  signStellarBody,
  signTypedDataBody,
} from './chain-schemas.ts';
import { idSchema } from './schemas.ts';

function requireObject(body: unknown, what: string): void {
  if (body === undefined) throw new ValidationError('a JSON request body is required');
  if (Array.isArray(body))
    throw new ValidationError(
      what === 'rpc'
        ? 'batch requests (a JSON array) are not supported; send one JSON-RPC request per call'
        : 'the body must be a JSON object',
    );
}

/** The reference's EVM variant: the transaction's bytes as an array of integers (signEvmBody). */
function evmBytes(body: unknown[]): number[] {
  const bad = body.findIndex((b) => !Number.isInteger(b) || (b as number) < 0 || (b as number) > 255);
  if (bad >= 0)
    throw new ValidationError(`an array body is the transaction's bytes: item ${bad} must be an integer from 0 to 255`);
  if (body.length > signEvmBody.maxItems)
    throw new ValidationError(`an array body is the transaction's bytes: at most ${signEvmBody.maxItems} of them`);
  return body as number[];
}

/** The sign-transaction body's variant, told apart by its shape (the reference's untagged enum). */
function signTransactionInput(
  body: unknown,
  validators: { stellar: (b: unknown) => { unsigned_xdr: string }; solana: (b: unknown) => { transaction: string } },
): SignTransactionInput {
  if (body === undefined) throw new ValidationError('a JSON request body is required');
  if (Array.isArray(body)) return { kind: 'evm', bytes: evmBytes(body) };
  if (body !== null && typeof body === 'object') {
    if ('unsigned_xdr' in body) return { kind: 'stellar', ...validators.stellar(body) };
    if ('transaction' in body) return { kind: 'solana', ...validators.solana(body) };
  }
  throw new ValidationError(
    'the body must be { "unsigned_xdr": "<base64 envelope XDR>" } for a Stellar relayer or { "transaction": "<base64 wire transaction>" } for a Solana relayer',
  );
}

export function createChainOperations(deps: {
  relayers: RelayerService;
  chain: RelayerChainService;
}): RelayerChainOperations {
  const { relayers, chain } = deps;
  const relayerId = compile<string>(idSchema, 'relayer_id');
  const rpcRequest = compile<{ id?: string | number | null; method: string; params?: unknown }>(rpcBody, 'body');
  const signData = compile<{ message: string }>(signDataBody, 'body');
  const signTypedData = compile<TypedDataHashes>(signTypedDataBody, 'body');
  const signTx = {
    stellar: compile<{ unsigned_xdr: string }>(signStellarBody, 'body'),
    solana: compile<{ transaction: string }>(signSolanaBody, 'body'),
  };
  const relayer = (id: string) => relayers.require(relayerId(id));

  return {
    getRelayerStatus: async (id) => chain.status(await relayer(id)),
    getRelayerBalance: async (id) => chain.balance(await relayer(id)),
    async rpc(id, body) {
      const row = await relayer(id);
      requireObject(body, 'rpc');
      const { id: requestId, method, params } = rpcRequest(body);
      // The reference's defaults: an absent id is 1, a null one stays null; absent or null params are not sent.
      const request: RpcRequest = {
        id: requestId === undefined ? 1 : requestId,
        method,
        ...(params === undefined || params === null ? {} : { params }),
      };
      return chain.rpc(row, request);
    },
    async signData(id, body) {
      const row = await relayer(id);
      requireObject(body, 'sign');
      return chain.signData(row, signData(body).message);
    },
    async signTypedData(id, body) {
      const row = await relayer(id);
      requireObject(body, 'sign-typed-data');
      return chain.signTypedData(row, signTypedData(body));
    },
    async signTransaction(id, body) {
      const row = await relayer(id);
      return chain.signTransaction(row, signTransactionInput(body, signTx));
    },
  };
}
