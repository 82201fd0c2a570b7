// @solana/kit's RPC over the failover pool: kit builds the requests and types the answers, the pool picks the URL.
import { createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit';
import type { RpcClientOptions } from '../rpc-options.ts';
import { createRpcPool, postJson, type FetchFor, type JsonCodec, type RpcPool } from '../rpc-pool.ts';
import { RpcFailure } from '../rpc-text.ts';

/** A node's JSON-RPC error, raw: kept as the node sent it (code, bounded message, data with `err` and `logs`). */
export class SolanaNodeError extends RpcFailure {
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

export type SolanaRpcOptions = RpcClientOptions;

type ReviverContext = { source?: string };
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * Solana's JSON as kit reads and writes it: every integer literal of an answer is a bigint (u64 lamports and slots
 * stay exact; fractions stay numbers), and bigints of a request are written as plain integers.
 */
const SOLANA_JSON: JsonCodec = {
  stringify: (payload) =>
    JSON.stringify(payload, (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(value.toString()) : value)),
  parse: (text) =>
    JSON.parse(text, (_key, value: unknown, context?: ReviverContext) => {
      const integer =
        typeof value === 'number' && context?.source ? /^(-?\d+)(?:[eE]\+?(\d+))?$/.exec(context.source) : null;
      if (!integer || (integer[2] !== undefined && Number(integer[2]) > 1_000)) return value;
      return BigInt(integer[1]!) * 10n ** BigInt(integer[2] ?? 0);
    }),
};

/** One request to one URL; the answer is a JSON-RPC answer or an attempt error (status, connection), never a body. */
function createSender(
  fetchFor: FetchFor | undefined,
): (url: string, payload: unknown, signal: AbortSignal) => Promise<RawResponse> {
  return (url, payload, signal) =>
    postJson(url, SOLANA_JSON.stringify(payload), signal, { fetch: fetchFor?.(url), codec: SOLANA_JSON });
}

export function createSolanaRpc(options: SolanaRpcOptions) {
  const pool: RpcPool<unknown, RawResponse> = createRpcPool({
    ...options,
    send: createSender(options.fetchFor),
    errorCode: (response) => (response.error ? Number(response.error.code) : undefined),
    serverSideCodes: SERVER_SIDE_CODES,
    probe: { jsonrpc: '2.0', id: 1, method: 'getHealth' },
  });
  // A node's error is thrown raw (SolanaNodeError) instead of kit's decoded SolanaError, so the send
  // outcome is classified from the RPC's documented shape (code -32002 with data.err and data.logs).
  const over = (request: RpcPool<unknown, RawResponse>['request']) =>
    (async ({ payload, signal }: { payload: unknown; signal?: AbortSignal }) => {
      const method = (payload as { method?: string }).method ?? 'unknown';
      const response = await request(method, payload, signal);
      if (response.error) throw new SolanaNodeError(response.error);
      return response;
    }) as RpcTransport;
  /** A request passed through as given; the node's error is part of the answer. Throws RpcUnavailableError when no URL answered. */
  const raw = (method: string, params: unknown): Promise<RawResponse> =>
    pool.request(method, { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
  // Each URL on its own (no failover), for a submission sent to all of them (src/chains/submit-all.ts).
  const urls = pool.urls.map((u) => ({ ...u, rpc: createSolanaRpcFromTransport(over(u.request)) }));
  return { rpc: createSolanaRpcFromTransport(over(pool.request)), raw, health: pool.health, urls };
}

export type SolanaRpc = ReturnType<typeof createSolanaRpc>['rpc'];
