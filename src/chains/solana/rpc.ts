// @solana/kit's RPC over the failover pool: kit builds the requests and types the answers, the pool picks the URL.
import { createDefaultRpcTransport, createSolanaRpcFromTransport, isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, type RpcTransport } from '@solana/kit';
import type { RpcUrlConfig } from '../../config/config.ts';
import type { RpcObserver } from '../evm/rpc-transport.ts';
import { createRpcPool, RpcAttemptError, type RpcPool } from '../rpc-pool.ts';

/** A node's JSON-RPC error, raw: kept as the node sent it (code, message, data with `err` and `logs`). */
export class SolanaNodeError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(error: { code: number | bigint; message: string; data?: unknown }) {
    super(error.message);
    this.name = 'SolanaNodeError';
    this.code = Number(error.code);
    this.data = error.data;
  }
}

// Node unhealthy or behind, block not available yet, minimum context slot not reached: another node may serve.
const SERVER_SIDE_CODES = new Set([-32005, -32004, -32014, -32016]);

interface RawResponse {
  result?: unknown;
  error?: { code: number | bigint; message: string; data?: unknown };
}

export interface SolanaRpcOptions {
  network: string;
  urls: readonly RpcUrlConfig[];
  timeoutMs: number;
  retryCount: number;
  retryDelayMs: number;
  cooldownMs: number;
  observer?: RpcObserver | undefined;
}

/** One kit transport per URL (kit's own bigint-safe JSON), its HTTP failures turned into pool attempts. */
function createSender(): (url: string, payload: unknown, signal: AbortSignal) => Promise<RawResponse> {
  const transports = new Map<string, RpcTransport>();
  return async (url, payload, signal) => {
    let transport = transports.get(url);
    if (!transport) transports.set(url, (transport = createDefaultRpcTransport({ url: url as `http://${string}` })));
    try {
      return await transport<RawResponse>({ payload, signal });
    } catch (err) {
      if (isSolanaError(err, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) throw new RpcAttemptError(`HTTP ${err.context.statusCode}`, `http_${err.context.statusCode}`);
      throw err;
    }
  };
}

export function createSolanaRpc(options: SolanaRpcOptions) {
  const pool: RpcPool<unknown, RawResponse> = createRpcPool({
    ...options,
    send: createSender(),
    errorCode: (response) => (response.error ? Number(response.error.code) : undefined),
    serverSideCodes: SERVER_SIDE_CODES,
  });
  // A node's error is thrown raw (SolanaNodeError) instead of kit's decoded SolanaError, so the send
  // outcome is classified from the RPC's documented shape (code -32002 with data.err and data.logs).
  const transport = (async ({ payload, signal }: { payload: unknown; signal?: AbortSignal }) => {
    const method = (payload as { method?: string }).method ?? 'unknown';
    const response = await pool.request(method, payload, signal);
    if (response.error) throw new SolanaNodeError(response.error);
    return response;
  }) as RpcTransport;
  /** A request passed through as given; the node's error is part of the answer. Throws RpcUnavailableError when no URL answered. */
  const raw = (method: string, params: unknown): Promise<RawResponse> => pool.request(method, { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
  return { rpc: createSolanaRpcFromTransport(transport), raw, health: pool.health };
}

export type SolanaRpc = ReturnType<typeof createSolanaRpc>['rpc'];
