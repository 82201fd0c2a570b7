// Reading viem's errors: did a node answer (or did the transport fail), its code and message, and what a refused broadcast means.
import { BaseError } from 'viem';
import type { BroadcastRejection } from '../../domain/chains/ports.ts';
import { boundMessage, connectionFailure } from '../rpc-text.ts';

const find = (err: unknown, fn: (e: Record<string, unknown>) => boolean): Record<string, unknown> | null =>
  err instanceof BaseError
    ? (err.walk((e) => e !== null && typeof e === 'object' && fn(e as Record<string, unknown>)) as Record<
        string,
        unknown
      > | null)
    : null;

/** The JSON-RPC error code a node answered with, if it answered. */
export function rpcCode(err: unknown): number | undefined {
  const code = find(err, (e) => typeof e.code === 'number')?.code;
  return typeof code === 'number' ? code : undefined;
}

export function httpStatus(err: unknown): number | undefined {
  const status = find(err, (e) => typeof e.status === 'number')?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The node's own words from its JSON-RPC error object (viem's RpcRequestError keeps them in `details`), bounded;
 * else what failed on the way: HTTP status, timeout, connection error, viem's summary. Never the body of an
 * answer that is not JSON-RPC (viem puts such a body, or a JSON parser's quote of it, in `details` too).
 */
export function nodeMessage(err: unknown): string {
  const answered = find(err, (e) => e.name === 'RpcRequestError' && typeof e.code === 'number');
  if (answered)
    return boundMessage(
      typeof answered.details === 'string' && answered.details !== ''
        ? answered.details
        : 'the node answered an error without a message',
    );
  const status = httpStatus(err);
  if (status !== undefined) return `HTTP ${status}`;
  if (find(err, (e) => e.name === 'TimeoutError')) return 'the request timed out';
  if (find(err, (e) => e.name === 'SyntaxError')) return 'the answer is not a JSON-RPC response';
  if (find(err, (e) => e.name === 'HttpRequestError')) return connectionFailure(err);
  if (err instanceof BaseError) return boundMessage(err.shortMessage);
  return 'the answer could not be read';
}

/** The revert data a node returned with an `execution reverted` answer, if any. */
export function revertData(err: unknown): `0x${string}` | undefined {
  const holder = find(err, (e) => typeof e.data === 'string' && /^0x[0-9a-fA-F]*$/.test(e.data as string));
  if (holder) return holder.data as `0x${string}`;
  // Some nodes nest it: { code: 3, data: { data: '0x…' } }.
  const nested = find(err, (e) => typeof (e.data as { data?: unknown } | undefined)?.data === 'string');
  return (nested?.data as { data?: `0x${string}` } | undefined)?.data;
}

/**
 * The JSON-RPC error object a node answered with (code, its own message, its `data`), for answers
 * passed through as they are; null when no node answered (timeout, refused, HTTP 5xx/429/408/403).
 */
export function nodeError(err: unknown): { code: number; message: string; data?: unknown } | null {
  const status = httpStatus(err);
  if (status !== undefined && (status >= 500 || status === 429 || status === 408 || status === 403)) return null;
  const code = rpcCode(err);
  if (code === undefined || code === -1) return null;
  const data = find(err, (e) => typeof e.code === 'number' && e.data !== undefined)?.data;
  return { code, message: nodeMessage(err), ...(data !== undefined ? { data } : {}) };
}

// Codes that say "this node cannot serve now" rather than "your request is wrong": try another URL.
const SERVER_SIDE_CODES = new Set([-1, -32603, -32005, -32007, 429]);

/**
 * True when a node answered the request itself with a JSON-RPC error (nonce too low, reverted…):
 * another URL would say the same, so there is no failover and the URL stays healthy. Timeouts,
 * refused connections, HTTP 5xx/429 and overload codes are the transport's failures instead.
 */
export function isNodeAnswer(err: unknown): boolean {
  const status = httpStatus(err);
  if (status !== undefined && (status >= 500 || status === 429 || status === 408 || status === 403)) return false;
  const code = rpcCode(err);
  return code !== undefined && !SERVER_SIDE_CODES.has(code);
}

/** Short label for metrics: the JSON-RPC code, `http_<status>`, `timeout` or `network`. */
export function errorLabel(err: unknown): string {
  const code = rpcCode(err);
  if (code !== undefined && code !== -1) return String(code);
  const status = httpStatus(err);
  if (status !== undefined) return `http_${status}`;
  if (find(err, (e) => e.name === 'TimeoutError')) return 'timeout';
  return 'network';
}

// Texts of geth, erigon, nethermind, besu, reth, anvil and hardhat; the order matters
// ("replacement transaction underpriced" before "underpriced").
const BROADCAST_CLASSES: Array<[RegExp, BroadcastRejection | 'already_known']> = [
  [
    /already known|already imported|known transaction|alreadyknown|already in (the )?(mem)?pool|already exists/i,
    'already_known',
  ],
  [
    /replacement transaction underpriced|replacement.*underpriced|could not replace existing tx|replacementnotallowed/i,
    'replacement_underpriced',
  ],
  [/nonce too low|nonce is too low|oldnonce|nonce has already been used|invalid nonce.*(lower|less)/i, 'nonce_too_low'],
  [/nonce too high|nonce is too high|nonce gap|noncegap|nonce exceeds|future transaction/i, 'nonce_too_high'],
  [
    /insufficient funds|insufficientfunds|insufficient balance|not enough funds|sender doesn't have enough funds/i,
    'insufficient_funds',
  ],
  [/intrinsic gas too low|intrinsicgas|gas limit (is )?too low|not enough gas to cover/i, 'intrinsic_gas_too_low'],
  [
    /underpriced|fee too low|feetoolow|gas price too low|less than block base fee|fee cap .*(less|lower) than .*base fee|max fee per gas less than/i,
    'underpriced',
  ],
];

export function classifyBroadcast(message: string): BroadcastRejection | 'already_known' {
  for (const [pattern, kind] of BROADCAST_CLASSES) if (pattern.test(message)) return kind;
  return 'other';
}
