// The RPC transport of one network: viem's fallback over http transports, with a health gate per URL so a dead URL is skipped.
import { BaseError, fallback, http, type Transport } from 'viem';
import type { RpcUrlConfig } from '../../config/config.ts';
import type { RpcUrlHealth } from '../../domain/chains/ports.ts';
import { errorLabel, isNodeAnswer, nodeMessage } from './rpc-errors.ts';
import { createUrlHealth, maskUrl, type UrlState } from '../url-health.ts';

/** Where RPC traffic is reported (src/observability/metrics.ts implements it). `url` is always masked. */
export interface RpcObserver {
  /** One request to one URL; `error` is set (a code label) when it failed. */
  rpcRequest(event: { network: string; url: string; method: string; seconds: number; error?: string }): void;
  /** A URL went up or down (also called once per URL at start, as up). */
  rpcUrlHealth(network: string, url: string, up: boolean): void;
}

export interface RpcTransportOptions {
  network: string;
  urls: readonly RpcUrlConfig[];
  /** Per request and URL. */
  timeoutMs: number;
  /** Whole rounds over every URL after the first, with exponential backoff from retryDelayMs. */
  retryCount: number;
  retryDelayMs: number;
  /** A failed URL is skipped this long (doubling per consecutive failure, up to 30×) while another URL is up. */
  cooldownMs: number;
  observer?: RpcObserver | undefined;
  /** The fetch for one URL: the guard's for a URL given through the API; undefined keeps viem's (the global fetch). */
  fetchFor?: ((url: string) => typeof fetch | undefined) | undefined;
}

export { maskUrl };

class UrlSkippedError extends BaseError {
  constructor(label: string) {
    super(`${label} is marked down; trying the next URL`, { name: 'UrlSkippedError' });
  }
}

export function createRpcTransport(options: RpcTransportOptions): { transport: Transport; health(): RpcUrlHealth[] } {
  const { network, observer } = options;
  const { states, skip, answered, failed: markFailed, health } = createUrlHealth(options);
  const failed = (s: UrlState, err: unknown) => markFailed(s, nodeMessage(err));

  const gated = (s: UrlState): Transport => {
    const fetchFn = options.fetchFor?.(s.url);
    const base = http(s.url, { timeout: options.timeoutMs, retryCount: 0, ...(fetchFn ? { fetchFn } : {}) });
    return (params) => {
      const inner = base(params);
      const request = (async (args: { method: string; params?: unknown }, opts?: Parameters<typeof inner.request>[1]) => {
        if (skip(s, Date.now())) throw new UrlSkippedError(s.label);
        const started = performance.now();
        try {
          const result = await inner.request(args, opts);
          answered(s, performance.now() - started);
          observer?.rpcRequest({ network, url: s.label, method: args.method, seconds: (performance.now() - started) / 1000 });
          return result;
        } catch (err) {
          if (isNodeAnswer(err)) answered(s, performance.now() - started);
          else failed(s, err);
          observer?.rpcRequest({ network, url: s.label, method: args.method, seconds: (performance.now() - started) / 1000, error: errorLabel(err) });
          throw err;
        }
      }) as typeof inner.request;
      return { ...inner, request };
    };
  };

  const transport = fallback(states.map(gated), {
    retryCount: options.retryCount,
    retryDelay: options.retryDelayMs,
    // A node's own answer (nonce too low, reverted…) would be the same elsewhere: no failover.
    shouldThrow: (err) => isNodeAnswer(err),
  });
  return {
    transport,
    health,
  };
}
