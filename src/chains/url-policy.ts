// Which RPC URLs the guard applies to: those that came through the API. The config file's own URLs and the
// devnets' are the operator's and stay allowed (a devnet is on loopback by design).
import type { ConfigFile } from '../config/config.ts';
import type { ResolveHost, UrlGuardSettings } from '../net/url-guard.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import type { FetchFor } from './rpc-pool.ts';
import { RpcUrlRefusedError } from './rpc-text.ts';

export interface RpcUrlGuardOptions {
  settings: UrlGuardSettings;
  /** The config file as written (before RPC URLs stored through the API replace a network's). */
  configFile: Pick<ConfigFile, 'networks' | 'relayers'>;
  /** The guard's DNS lookup (tests steer it); default: the system resolver. */
  resolve?: ResolveHost | undefined;
}

export interface RpcUrlPolicy {
  fetchFor: FetchFor;
  /** Throws VALIDATION_FAILED naming the field, the host and the rule for the first URL the guard refuses. */
  checkRpcUrls(urls: ReadonlyArray<{ url: string }>, field: string): Promise<void>;
  close(): Promise<void>;
}

function configuredUrls(file: RpcUrlGuardOptions['configFile']): Set<string> {
  const urls = new Set<string>();
  for (const n of file.networks) {
    for (const u of n.rpc_urls) urls.add(u.url);
    // A Stellar network's Horizon (order book prices) is the operator's too.
    if (n.horizon_url) urls.add(n.horizon_url);
  }
  for (const r of file.relayers) for (const u of r.custom_rpc_urls ?? []) urls.add(typeof u === 'string' ? u : u.url);
  return urls;
}

/** Without options nothing is guarded (adapters built directly, as in the chain tests). */
export function createRpcUrlPolicy(
  options: RpcUrlGuardOptions | undefined,
  devnetUrls: Iterable<string>,
): RpcUrlPolicy {
  if (!options) return { fetchFor: () => undefined, checkRpcUrls: async () => {}, close: async () => {} };
  const trusted = configuredUrls(options.configFile);
  for (const url of devnetUrls) trusted.add(url);
  // The chains' own refusal error: their failure texts (connectionFailure) recognise it and say `refused: …`.
  const policy = createUrlPolicy({
    settings: options.settings,
    trusted,
    what: 'RPC URL',
    resolve: options.resolve,
    refused: (m) => new RpcUrlRefusedError(m),
  });
  return {
    fetchFor: policy.fetchFor,
    async checkRpcUrls(urls, field) {
      for (const [i, { url }] of urls.entries()) await policy.check(url, `${field}.${i}`);
    },
    close: () => policy.close(),
  };
}
