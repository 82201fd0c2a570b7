// The health of one network's RPC URLs, shared by the EVM transport and the Solana/Stellar pool: order by weight,
// mark a URL down on a transport failure with a growing cooldown, skip it while another may answer, report it.
import type { RpcUrlConfig } from '../config/config.ts';
import type { RpcUrlHealth } from '../domain/chains/ports.ts';

export interface UrlState {
  url: string;
  label: string;
  up: boolean;
  failures: number;
  retryAt: number;
  lastError: string | null;
  latencyMs: number | null;
  checkedAt: number | null;
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

export interface UrlHealthOptions {
  network: string;
  urls: readonly RpcUrlConfig[];
  cooldownMs: number;
  observer?: { rpcUrlHealth(network: string, url: string, up: boolean): void } | undefined;
}

export function createUrlHealth(options: UrlHealthOptions) {
  const { network, observer } = options;
  // Highest weight first; equal weights keep the configured order (Array.prototype.sort is stable).
  const states: UrlState[] = [...options.urls]
    .sort((a, b) => b.weight - a.weight)
    .map((u) => ({ url: u.url, label: maskUrl(u.url), up: true, failures: 0, retryAt: 0, lastError: null, latencyMs: null, checkedAt: null }));
  for (const s of states) observer?.rpcUrlHealth(network, s.label, true);

  const available = (s: UrlState, now: number) => s.up || now >= s.retryAt;
  const setUp = (s: UrlState, up: boolean) => {
    if (s.up === up) return;
    s.up = up;
    observer?.rpcUrlHealth(network, s.label, up);
  };
  return {
    states,
    // A down URL is skipped only while another one may answer, so a total outage still tries every URL.
    skip: (s: UrlState, now: number) => !available(s, now) && states.some((o) => o !== s && available(o, now)),
    answered(s: UrlState, ms: number) {
      s.latencyMs = Math.round(ms);
      s.checkedAt = Date.now();
      s.failures = 0;
      setUp(s, true);
    },
    failed(s: UrlState, message: string) {
      s.checkedAt = Date.now();
      s.lastError = message;
      s.failures += 1;
      s.retryAt = s.checkedAt + options.cooldownMs * Math.min(2 ** (s.failures - 1), 30);
      setUp(s, false);
    },
    health: (): RpcUrlHealth[] =>
      states.map((s) => ({ url: s.label, up: s.up, lastError: s.lastError, latencyMs: s.latencyMs, checkedAt: s.checkedAt === null ? null : new Date(s.checkedAt).toISOString() })),
  };
}
