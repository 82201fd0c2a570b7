// Stellar RPC (JSON-RPC) over the failover pool, with XDR strings in and out: no stellar-sdk, whose bundled stellar-base cannot take our stellar-base objects.
import { AppError } from '../../errors.ts';
import type { RpcClientOptions } from '../rpc-options.ts';
import { createRpcPool, postJsonRpc, type JsonRpcResponse, type PoolUrl } from '../rpc-pool.ts';
import { failureText, RpcFailure } from '../rpc-text.ts';

/** A node's JSON-RPC error (invalid params, undecodable XDR…): its code and bounded message. */
export class StellarNodeError extends RpcFailure {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'StellarNodeError';
    this.code = code;
  }
}

export type StellarRpcOptions = RpcClientOptions;

export interface StellarRpc {
  /** Throws StellarNodeError for a node's JSON-RPC error and RpcUnavailableError when no URL answered. */
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** `call`, with any failure turned into CHAIN_UNAVAILABLE naming the network and the method. */
  read<T>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** A request passed through as given: the node's answer, its error included. Throws CHAIN_UNAVAILABLE when no URL answered. */
  raw(method: string, params: unknown): Promise<JsonRpcResponse>;
  health: ReturnType<typeof createRpcPool>['health'];
  /** Each URL on its own (no failover), for a submission sent to all of them (src/chains/submit-all.ts). */
  urls: StellarUrl[];
}

export interface StellarUrl extends PoolUrl<{ method: string; params?: unknown }, JsonRpcResponse> {
  /** `call` through this URL alone. */
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
}

export function createStellarRpc(options: StellarRpcOptions): StellarRpc {
  const pool = createRpcPool<{ method: string; params?: unknown }, JsonRpcResponse>({
    ...options,
    send: (url, payload, signal) => postJsonRpc(url, payload, signal, options.fetchFor?.(url)),
    errorCode: (response) => response.error?.code,
    probe: { method: 'getHealth' },
  });
  const callVia =
    (request: typeof pool.request) =>
    async <T>(method: string, params: Record<string, unknown> = {}): Promise<T> => {
      const response = await request(method, { method, params });
      if (response.error) throw new StellarNodeError(response.error.code, response.error.message);
      return response.result as T;
    };
  const call = callVia(pool.request);
  const read = async <T>(method: string, params?: Record<string, unknown>): Promise<T> => {
    try {
      return await call<T>(method, params);
    } catch (err) {
      // No `cause`: transport texts may name a URL, and URLs may carry an API key.
      throw new AppError('CHAIN_UNAVAILABLE', {
        reason: `network '${options.network}': ${method} failed: ${failureText(err)}`,
      });
    }
  };
  const raw = async (method: string, params: unknown): Promise<JsonRpcResponse> => {
    try {
      return await pool.request(method, { method, params });
    } catch (err) {
      throw new AppError('CHAIN_UNAVAILABLE', {
        reason: `network '${options.network}': ${method} failed: ${failureText(err)}`,
      });
    }
  };
  return { call, read, raw, health: pool.health, urls: pool.urls.map((u) => ({ ...u, call: callVia(u.request) })) };
}
