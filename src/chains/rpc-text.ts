// What an RPC failure may say, for every chain family: a node's JSON-RPC error object (code, bounded message),
// or what went wrong on the way (HTTP status, connection error code, a guard's refusal). Never a response body:
// an RPC URL may point at a service whose answer is not for the caller's eyes.

/** A node's message is cut to this many characters in answers, logs and URL health. */
const MAX_NODE_MESSAGE = 200;

export function boundMessage(message: string): string {
  return message.length > MAX_NODE_MESSAGE ? `${message.slice(0, MAX_NODE_MESSAGE - 1)}…` : message;
}

export interface NodeRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error object (integer code, string message), its message bounded; null for anything else. */
function jsonRpcError(value: unknown): NodeRpcError | null {
  if (value === null || typeof value !== 'object') return null;
  const { code, message, data } = value as Record<string, unknown>;
  const numeric = typeof code === 'bigint' ? Number(code) : code;
  if (typeof numeric !== 'number' || !Number.isInteger(numeric) || typeof message !== 'string') return null;
  return { code: numeric, message: boundMessage(message), ...(data !== undefined ? { data } : {}) };
}

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: NodeRpcError;
}

/** A parsed body as a JSON-RPC answer (`result`, or a well-formed `error`), other members dropped; null when it is not one. */
export function jsonRpcAnswer(parsed: unknown): JsonRpcAnswer | null {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const body = parsed as Record<string, unknown>;
  const id = body.id ?? null;
  if ('error' in body && body.error !== undefined && body.error !== null) {
    const error = jsonRpcError(body.error);
    return error ? { jsonrpc: '2.0', id, error } : null;
  }
  if ('result' in body) return { jsonrpc: '2.0', id, result: body.result };
  return null;
}

/** An error whose message is safe to show: our own text, or a node's bounded JSON-RPC message. */
export class RpcFailure extends Error {}

/** What a failed RPC read may say: an RpcFailure's message; anything else (a library's quote of an answer) in general terms. */
export function failureText(err: unknown): string {
  return err instanceof RpcFailure ? err.message : 'the answer could not be read';
}

/** An RPC URL the guard refused (RPC_ALLOWED_HOSTS, RPC_BLOCK_PRIVATE_IPS): the message names the host and the rule. */
export class RpcUrlRefusedError extends RpcFailure {
  constructor(message: string) {
    super(message);
    this.name = 'RpcUrlRefusedError';
  }
}

/** Follows `cause` links (fetch's TypeError holds the socket's error). */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== null && typeof e === 'object' && chain.length < 8; e = (e as { cause?: unknown }).cause)
    chain.push(e);
  return chain;
}

/**
 * A request that got no answer, by kind: the guard's refusal, the socket's error code, or the innermost cause's
 * text (fetch rejects before any body is read, so that text is undici's or the socket's, never the server's).
 */
export function connectionFailure(err: unknown): string {
  const chain = causes(err);
  const refused = chain.find((e): e is RpcUrlRefusedError => e instanceof RpcUrlRefusedError);
  if (refused) return `refused: ${refused.message}`;
  const code = chain
    .map((e) => (e as { code?: unknown }).code)
    .find((c) => typeof c === 'string' && /^[A-Z_0-9]+$/.test(c));
  if (code) return `fetch failed: ${code as string}`;
  const innermost = chain.at(-1);
  const text = innermost instanceof Error && innermost !== err ? innermost.message.slice(0, 80) : '';
  return text ? `fetch failed: ${text}` : 'fetch failed';
}
