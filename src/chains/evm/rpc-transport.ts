// The RPC transport of one network: viem's fallback over http transports, with a health gate per URL so a dead URL is skipped.
import { BaseError, fallback, http, HttpRequestError, type Transport } from 'viem';
import type { RpcClientOptions } from '../rpc-options.ts';
import type { RpcUrlHealth } from '../../domain/chains/ports.ts';
import { errorLabel, httpStatus, isNodeAnswer, nodeMessage } from './rpc-errors.ts';
import { createUrlHealth, retryAfterMs, type UrlState } from '../url-health.ts';

/** `fetchFor` undefined keeps viem's fetch (the global one). */
export interface RpcTransportOptions extends RpcClientOptions {
  /** Build `batched` as a transport that sends the requests of one turn as one JSON-RPC batch per URL. */
  batch?: boolean | undefined;
}

class UrlSkippedError extends BaseError {
  constructor(label: string) {
    super(`${label} is marked down; trying the next URL`, { name: 'UrlSkippedError' });
  }
}

/** The Retry-After of a 429 (or any answer carrying one), in ms. */
function retryAfterOf(err: unknown): number | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const holder = err.walk((e) => (e as { headers?: unknown })?.headers instanceof Headers) as {
    headers?: Headers;
  } | null;
  return retryAfterMs(holder?.headers?.get('retry-after'));
}

/**
 * The error passed on to viem's fallback once its URL was marked down: viem would otherwise wait out a Retry-After
 * before its next round over every URL (a pause of all URLs for one URL's limit). The status stays for the labels.
 */
function withoutRetryAfter(err: unknown): unknown {
  const status = httpStatus(err);
  if (retryAfterOf(err) === undefined || status === undefined) return err;
  return new HttpRequestError({ url: 'rpc', status, details: nodeMessage(err) });
}

/** One URL on its own, for a broadcast sent to every URL (no failover: each answers for itself). */
export interface UrlSender {
  label: string;
  /** Takes broadcasts now: it answers (or may be tried) and was not caught accepting what never reached its node. */
  takesBroadcasts(): boolean;
  /** This URL's transport (batched when the network batches), with the same health gate as the failover's. */
  transport: Transport;
  /** Broadcasts through it are not trusted for `ms` (it accepted a transaction its node never received). */
  distrust(reason: string, ms: number): void;
}

export function createRpcTransport(options: RpcTransportOptions): {
  transport: Transport;
  batched: Transport;
  health(): RpcUrlHealth[];
  allDown(): boolean;
  urls: UrlSender[];
} {
  const { network, observer } = options;
  // Each URL's fetch also stops when its URL is marked down (url-health aborts `inFlight`), so no call waits out a dead URL.
  const fetchOf = (s: UrlState): typeof fetch => {
    const base = options.fetchFor?.(s.url) ?? fetch;
    return (input, init) =>
      base(input, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, s.inFlight.signal]) : s.inFlight.signal,
      });
  };
  // `batch`: requests of one turn to this URL share one HTTP request (viem's batch scheduler, flushed by a 0 ms timer);
  // each item still gets its own answer or error, and a failed request fails its items, which fail over one by one.
  const clientOf = (s: UrlState, batch = false) =>
    http(s.url, {
      timeout: options.timeoutMs,
      retryCount: 0,
      fetchFn: fetchOf(s),
      ...(batch ? { batch: { wait: 0 } } : {}),
    });
  const probe = async (s: UrlState) => {
    await clientOf(s)({ retryCount: 0 }).request({ method: 'eth_blockNumber' });
  };
  const clock = options.now ?? Date.now;
  const { states, skip, answered, failed, health, allDown } = createUrlHealth({
    ...options,
    probe: (s) => probe(s).catch((err: unknown) => Promise.reject(new Error(nodeMessage(err)))),
  });

  const gated = (s: UrlState, batch = false): Transport => {
    const base = clientOf(s, batch);
    return (params) => {
      const inner = base(params);
      const request = (async (
        args: { method: string; params?: unknown },
        opts?: Parameters<typeof inner.request>[1],
      ) => {
        if (skip(s)) throw new UrlSkippedError(s.label);
        const started = performance.now();
        const call = s.inFlight;
        const report = (error?: string) =>
          observer?.rpcRequest({
            network,
            url: s.label,
            method: args.method,
            seconds: (performance.now() - started) / 1000,
            ...(error ? { error } : {}),
          });
        try {
          const result = await inner.request(args, opts);
          answered(s, performance.now() - started);
          report();
          return result;
        } catch (err) {
          // Another call found this URL failing meanwhile: this one moves on without counting a second failure.
          if (call.signal.aborted) throw new UrlSkippedError(s.label);
          if (isNodeAnswer(err)) answered(s, performance.now() - started);
          else failed(s, nodeMessage(err), retryAfterOf(err));
          report(errorLabel(err));
          throw isNodeAnswer(err) ? err : withoutRetryAfter(err);
        }
      }) as typeof inner.request;
      return { ...inner, request };
    };
  };

  const over = (batch: boolean) =>
    fallback(
      states.map((s) => gated(s, batch)),
      {
        retryCount: options.retryCount,
        retryDelay: options.retryDelayMs,
        // A node's own answer (nonce too low, reverted…) would be the same elsewhere: no failover.
        shouldThrow: (err) => isNodeAnswer(err),
      },
    );
  const transport = over(false);
  // Same URLs and the same health as `transport`: a URL marked down by one is skipped by the other.
  const urls: UrlSender[] = states.map((s) => ({
    label: s.label,
    // The same clock as the URL's pauses (url-health.ts), so a test that steps one steps both.
    takesBroadcasts: () => !skip(s) && s.broadcastsDownUntil <= clock(),
    transport: gated(s, options.batch ?? false),
    distrust(reason, ms) {
      s.broadcastsDownUntil = clock() + ms;
      s.broadcastError = reason;
    },
  }));
  return { transport, batched: options.batch ? over(true) : transport, health, allDown, urls };
}
