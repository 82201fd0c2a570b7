// What every chain's RPC client is built from (the EVM transport, the Solana and Stellar pools), declared once.
import type { RpcUrlConfig } from '../config/config.ts';

/** Where RPC traffic is reported (src/observability/metrics.ts implements it). `url` is always masked. */
export interface RpcObserver {
  /** One request to one URL; `error` is set (a code label) when it failed. */
  rpcRequest(event: { network: string; url: string; method: string; seconds: number; error?: string }): void;
  /** A URL went up or down (also called once per URL at start, as up). */
  rpcUrlHealth(network: string, url: string, up: boolean): void;
}

/** The fetch for one URL: the guard's for a URL given through the API (src/net/url-guard.ts), else undefined (the global fetch). */
export type FetchFor = (url: string) => typeof fetch | undefined;

/** How each request is bounded and retried (RPC_TIMEOUT_MS and the PROVIDER_* knobs set them). */
export interface RpcSettings {
  /** Per request and URL. */
  timeoutMs: number;
  /** Whole rounds over every URL after the first, with exponential backoff from retryDelayMs. */
  retryCount: number;
  retryDelayMs: number;
  /** A failed URL is skipped this long (doubling per consecutive failure, up to 30×) while another URL is up. */
  cooldownMs: number;
  /** The clock a URL's pause is read against (default Date.now; url-health.ts). */
  now?: (() => number) | undefined;
}

/** Every chain's defaults: what the README lists for RPC_TIMEOUT_MS, PROVIDER_MAX_RETRIES, … */
export const RPC_DEFAULTS: RpcSettings = { timeoutMs: 10_000, retryCount: 2, retryDelayMs: 150, cooldownMs: 2_000 };

/** One network's RPC client: its URLs, the settings, where its traffic is reported, how each URL is fetched. */
export interface RpcClientOptions extends RpcSettings {
  network: string;
  urls: readonly RpcUrlConfig[];
  observer?: RpcObserver | undefined;
  fetchFor?: FetchFor | undefined;
}
