// JSON-RPC over HTTP to one network's URLs, with the same per-URL health rules as the EVM transport (src/chains/evm/rpc-transport.ts): weights, cooldown, failover.
import type { RpcUrlHealth } from '../domain/chains/ports.ts';
import type { RpcClientOptions } from './rpc-options.ts';
import { connectionFailure, jsonRpcAnswer, RpcFailure, type JsonRpcAnswer } from './rpc-text.ts';
import { createUrlHealth, retryAfterMs, type UrlState } from './url-health.ts';

export type JsonRpcResponse<T = unknown> = Omit<JsonRpcAnswer, 'result'> & { result?: T };

export type { FetchFor } from './rpc-options.ts';

/** Sends one request to one URL; throws an RpcAttemptError (or anything) when the URL did not answer. */
export type RpcSender<Req, Res> = (url: string, request: Req, signal: AbortSignal) => Promise<Res>;

export interface RpcPoolOptions<Req, Res> extends Omit<RpcClientOptions, 'fetchFor'> {
  send: RpcSender<Req, Res>;
  /** The JSON-RPC error code of an answer, if it is an error. */
  errorCode(response: Res): number | undefined;
  /** JSON-RPC codes that mean "this node cannot serve now" (unhealthy, behind): try the next URL. */
  serverSideCodes?: ReadonlySet<number>;
  /** Sent in the background to a paused URL whose pause is over (e.g. getHealth); without it the next call probes it. */
  probe?: Req;
}

/** No URL answered: the request may or may not have reached a node. `message` never names a URL. */
export class RpcUnavailableError extends RpcFailure {
  constructor(message: string) {
    super(message);
    this.name = 'RpcUnavailableError';
  }
}

/** One URL did not answer (the next URL is tried); `label` is the metric's code: timeout, network, http_<status>. */
export class RpcAttemptError extends RpcFailure {
  readonly label: string;
  /** The answer's Retry-After (a 429's), in ms: the URL is not asked again before it (capped). */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, label: string, retryAfter?: number) {
    super(message);
    this.label = label;
    this.retryAfterMs = retryAfter;
  }
}

/** The URL was marked down by another call while this one waited on it: not a failure of its own. */
class UrlSkipped extends RpcFailure {
  constructor() {
    super('marked down while this call waited on it; trying the next URL');
  }
}

const HTTP_RETRYABLE = (status: number) => status >= 500 || status === 429 || status === 408 || status === 403;

/** How one family writes and reads JSON (Solana keeps u64 integers exact as bigints). */
export interface JsonCodec {
  stringify(payload: unknown): string;
  parse(text: string): unknown;
}

export interface PostOptions {
  /** The guard's fetch for a URL given through the API; the global fetch otherwise. */
  fetch?: typeof fetch | undefined;
  codec?: JsonCodec;
}

const PLAIN_JSON: JsonCodec = { stringify: (payload) => JSON.stringify(payload), parse: (text) => JSON.parse(text) };

/**
 * One JSON-RPC request over fetch. The answer is a JSON-RPC answer (result, or an error object with a bounded
 * message) or an RpcAttemptError that says what failed (status, connection error): a body that is not JSON-RPC
 * (an error page, another service's answer) is never repeated.
 */
export async function postJson(
  url: string,
  body: string,
  signal: AbortSignal,
  options: PostOptions = {},
): Promise<JsonRpcResponse> {
  const send = options.fetch ?? fetch;
  let res: Response;
  try {
    res = await send(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body,
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new RpcAttemptError(connectionFailure(err), 'network');
  }
  const text = await res.text().catch(() => '');
  if (HTTP_RETRYABLE(res.status))
    throw new RpcAttemptError(`HTTP ${res.status}`, `http_${res.status}`, retryAfterMs(res.headers.get('retry-after')));
  let parsed: unknown;
  try {
    parsed = (options.codec ?? PLAIN_JSON).parse(text);
  } catch {
    parsed = undefined;
  }
  const answer = jsonRpcAnswer(parsed);
  if (!answer)
    throw new RpcAttemptError(`HTTP ${res.status}: the answer is not a JSON-RPC response`, `http_${res.status}`);
  return answer;
}

/** Plain JSON-RPC over fetch (Stellar RPC). */
export function postJsonRpc(
  url: string,
  payload: { method: string; params?: unknown },
  signal: AbortSignal,
  fetchFn?: typeof fetch,
): Promise<JsonRpcResponse> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: payload.method, params: payload.params ?? {} });
  return postJson(url, body, signal, { fetch: fetchFn });
}

/** One URL of the pool on its own, for a submission sent to every URL (no failover: each answers for itself). */
export interface PoolUrl<Req, Res> {
  label: string;
  /** Takes submissions now: it answers (or may be tried) and was not caught accepting what never reached its network. */
  takesSubmissions(): boolean;
  /** One attempt at this URL only, its health kept as for any call; throws (an RpcAttemptError) when it did not answer. */
  request(method: string, request: Req, signal?: AbortSignal): Promise<Res>;
  /** Submissions through it are not trusted for `ms` (shown in health() meanwhile); reads still go to it. */
  distrust(reason: string, ms: number): void;
}

export interface RpcPool<Req, Res> {
  /** Throws RpcUnavailableError when no URL answered in any round. */
  request(method: string, request: Req, signal?: AbortSignal): Promise<Res>;
  health(): RpcUrlHealth[];
  /** Each URL, in failover order, with the same health as `request`'s. */
  urls: PoolUrl<Req, Res>[];
}

/**
 * A pool over one network's URLs. `request` sends to the first available URL and moves to the next on
 * a transport failure (refused, timeout, HTTP 5xx/429/408/403, a server-side code); a node's own
 * JSON-RPC error is returned as the answer (another URL would say the same).
 */
export function createRpcPool<Req, Res>(options: RpcPoolOptions<Req, Res>): RpcPool<Req, Res> {
  const { network, observer } = options;
  const serverSide = options.serverSideCodes ?? new Set<number>();
  const probeRequest = options.probe;
  const probe =
    probeRequest === undefined
      ? undefined
      : async (s: UrlState) => {
          const timeout = AbortSignal.timeout(options.timeoutMs);
          const response = await options.send(s.url, probeRequest, timeout).catch((err: unknown) => {
            throw timeout.aborted
              ? new RpcAttemptError(`no answer within ${options.timeoutMs} ms`, 'timeout')
              : err instanceof RpcAttemptError
                ? err
                : new RpcAttemptError(connectionFailure(err), 'network');
          });
          const code = options.errorCode(response);
          if (code !== undefined && serverSide.has(code))
            throw new RpcAttemptError(`the node answered code ${code} (cannot serve now)`, String(code));
        };
  const { states, skip, answered, failed, health } = createUrlHealth({ ...options, probe });

  async function attempt(s: UrlState, method: string, req: Req, signal?: AbortSignal): Promise<Res> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    // Aborted when another call finds this URL failing: this one moves on at once instead of at its timeout.
    const call = s.inFlight;
    try {
      let response: Res;
      try {
        response = await options.send(s.url, req, AbortSignal.any([...(signal ? [signal] : []), timeout, call.signal]));
      } catch (err) {
        if (call.signal.aborted && !signal?.aborted) throw new UrlSkipped();
        if (timeout.aborted) throw new RpcAttemptError(`no answer within ${options.timeoutMs} ms`, 'timeout');
        // Only our own texts go on: another error's message may quote what the URL answered.
        throw err instanceof RpcAttemptError ? err : new RpcAttemptError(connectionFailure(err), 'network');
      }
      const code = options.errorCode(response);
      if (code !== undefined && serverSide.has(code))
        throw new RpcAttemptError(`the node answered code ${code} (cannot serve now)`, String(code));
      answered(s, performance.now() - started);
      observer?.rpcRequest({
        network,
        url: s.label,
        method,
        seconds: seconds(),
        ...(code !== undefined ? { error: String(code) } : {}),
      });
      return response;
    } catch (err) {
      if (err instanceof UrlSkipped) throw err;
      const failure = err as RpcAttemptError;
      failed(s, failure.message, failure.retryAfterMs);
      observer?.rpcRequest({ network, url: s.label, method, seconds: seconds(), error: failure.label });
      throw failure;
    }
  }

  async function request(method: string, req: Req, signal?: AbortSignal): Promise<Res> {
    let last = 'no RPC URL configured';
    for (let round = 0; round <= options.retryCount; round++) {
      if (round > 0) await new Promise((r) => setTimeout(r, options.retryDelayMs * 2 ** (round - 1)));
      for (const s of states) {
        if (signal?.aborted) throw signal.reason;
        if (skip(s)) continue;
        try {
          return await attempt(s, method, req, signal);
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          last = `${s.label}: ${(err as Error).message}`;
        }
      }
    }
    throw new RpcUnavailableError(`no RPC URL answered ${method} (last: ${last})`);
  }

  const clock = options.now ?? Date.now;
  const urls: PoolUrl<Req, Res>[] = states.map((s) => ({
    label: s.label,
    takesSubmissions: () => !skip(s) && s.broadcastsDownUntil <= clock(),
    async request(method, req, signal) {
      if (skip(s)) throw new RpcAttemptError('marked down; not asked', 'skipped');
      return attempt(s, method, req, signal);
    },
    distrust(reason, ms) {
      s.broadcastsDownUntil = clock() + ms;
      s.broadcastError = reason;
    },
  }));
  return { request, health, urls };
}
