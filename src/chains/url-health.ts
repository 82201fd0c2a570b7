// The health of one network's RPC URLs, shared by the EVM transport and the Solana/Stellar pool: order by weight,
// pause a URL on a transport failure (timeout, refused, 5xx, 429 for its Retry-After) with a backoff growing per
// failure, route calls around it while another URL answers, probe it in the background, report it. Nothing here is
// global: one URL's fault never pauses or slows the calls that go to the others.
import type { RpcUrlConfig } from '../config/config.ts';
import type { RpcUrlHealth } from '../domain/chains/ports.ts';

export interface UrlState {
  url: string;
  label: string;
  up: boolean;
  failures: number;
  /** Not asked before this (Unix ms) while another URL may answer. */
  retryAt: number;
  /** A 429's Retry-After (Unix ms): not asked before this even when every URL is down (the provider said so). */
  rateLimitedUntil: number;
  lastError: string | null;
  latencyMs: number | null;
  checkedAt: number | null;
  /** A background probe is in flight: calls keep going around the URL until it answers. */
  probing: boolean;
  /** Aborted when the URL is marked down, so calls still waiting on it fail over at once instead of at their timeout. */
  inFlight: AbortController;
  /**
   * The URL answers, but a broadcast (a Solana/Stellar submission) it accepted never reached its network (Unix ms until it is trusted again, and
   * why). Broadcasts go around it while another URL takes them; reads still use it.
   */
  broadcastsDownUntil: number;
  broadcastError: string | null;
}

/** Scheme, host and port only: RPC URLs often carry an API key in the path or query. */
export function maskUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const hidden = (u.pathname !== '/' && u.pathname !== '') || u.search !== '';
    return `${u.protocol}//${u.host}${hidden ? '/***' : ''}`;
  } catch {
    return '***';
  }
}

/** A backoff step is `cooldownMs` doubled per consecutive failure, up to this many times `cooldownMs`; Retry-After too. */
const MAX_BACKOFF_FACTOR = 30;

/**
 * A Retry-After header (RFC 9110: delay-seconds or an HTTP-date) in ms from `now`; undefined when absent or unreadable.
 * Capped by the caller: a provider asking for an hour must not take its URL away for an hour.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}

export interface UrlHealthOptions {
  network: string;
  urls: readonly RpcUrlConfig[];
  cooldownMs: number;
  /** The clock pauses are read against (ms since the epoch; default Date.now): a test steps over a cooldown with its own. */
  now?: (() => number) | undefined;
  observer?: { rpcUrlHealth(network: string, url: string, up: boolean): void } | undefined;
  /**
   * Asks one URL something cheap (e.g. eth_blockNumber) once its pause is over, resolving when it answered and
   * rejecting when not. Without it, the next call is let through to the URL instead.
   */
  probe?: ((s: UrlState) => Promise<void>) | undefined;
}

export function createUrlHealth(options: UrlHealthOptions) {
  const { network, observer } = options;
  const clock = options.now ?? Date.now;
  // Highest weight first; equal weights keep the configured order (Array.prototype.sort is stable).
  const states: UrlState[] = [...options.urls]
    .sort((a, b) => b.weight - a.weight)
    .map((u) => ({
      url: u.url,
      label: maskUrl(u.url),
      up: true,
      failures: 0,
      retryAt: 0,
      rateLimitedUntil: 0,
      lastError: null,
      latencyMs: null,
      checkedAt: null,
      probing: false,
      inFlight: new AbortController(),
      broadcastsDownUntil: 0,
      broadcastError: null,
    }));
  for (const s of states) observer?.rpcUrlHealth(network, s.label, true);
  const ceilingMs = options.cooldownMs * MAX_BACKOFF_FACTOR;

  const setUp = (s: UrlState, up: boolean) => {
    if (s.up === up) return;
    s.up = up;
    observer?.rpcUrlHealth(network, s.label, up);
  };

  function answered(s: UrlState, ms: number) {
    s.latencyMs = Math.round(ms);
    s.checkedAt = clock();
    s.failures = 0;
    s.rateLimitedUntil = 0;
    setUp(s, true);
  }

  /** `retryAfter`: a 429's Retry-After in ms, honoured up to the backoff's ceiling (cooldownMs × 30). */
  function failed(s: UrlState, message: string, retryAfter?: number) {
    s.checkedAt = clock();
    s.lastError = message;
    s.failures += 1;
    const backoff = options.cooldownMs * Math.min(2 ** (s.failures - 1), MAX_BACKOFF_FACTOR);
    const asked = retryAfter === undefined ? 0 : Math.min(retryAfter, ceilingMs);
    s.retryAt = s.checkedAt + Math.max(backoff, asked);
    if (asked > 0) s.rateLimitedUntil = s.checkedAt + asked;
    if (s.up) {
      // The calls still waiting on this URL go to the next one now.
      s.inFlight.abort();
      s.inFlight = new AbortController();
    }
    setUp(s, false);
  }

  function startProbe(s: UrlState) {
    if (!options.probe || s.probing) return;
    s.probing = true;
    const started = performance.now();
    options
      .probe(s)
      .then(
        () => answered(s, performance.now() - started),
        (err: unknown) => failed(s, err instanceof Error ? err.message : String(err)),
      )
      .finally(() => {
        s.probing = false;
      });
  }

  /** A URL that calls may go to now, without waiting on another's fault. */
  const usable = (s: UrlState, now: number) =>
    s.up || (!options.probe && now >= s.retryAt && now >= s.rateLimitedUntil);

  return {
    states,
    /**
     * True when a call should pass this URL by. A down URL is passed by while another one may answer (its pause
     * over, it is probed in the background); when none may, every URL is tried (the first to answer ends the
     * outage), except one a 429 asked to wait.
     */
    skip(s: UrlState): boolean {
      if (s.up) return false;
      const now = clock();
      if (now >= s.retryAt) startProbe(s);
      if (states.some((o) => o !== s && usable(o, now))) return !usable(s, now);
      return now < s.rateLimitedUntil;
    },
    answered,
    failed,
    /** True when no URL is up: the network waits until one answers. */
    allDown: () => states.length > 0 && states.every((s) => !s.up),
    health: (): RpcUrlHealth[] =>
      states.map((s) => ({
        url: s.label,
        up: s.up,
        lastError: s.lastError,
        latencyMs: s.latencyMs,
        checkedAt: s.checkedAt === null ? null : new Date(s.checkedAt).toISOString(),
        ...(s.broadcastsDownUntil > Date.now() ? { broadcastsUp: false, broadcastError: s.broadcastError } : {}),
      })),
  };
}
