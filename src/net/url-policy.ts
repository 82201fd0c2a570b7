// Which URLs the guard applies to: those that came through the API. URLs the operator wrote (the config file's, the
// devnets') are trusted and go through the plain fetch; every other one is checked when given and at every connect.
import { ValidationError } from '../errors.ts';
import { createUrlGuard, type RefusedError, type ResolveHost, type UrlGuardSettings } from './url-guard.ts';

export interface UrlPolicyOptions {
  settings: UrlGuardSettings;
  /** The operator's URLs, compared as written. */
  trusted: Iterable<string>;
  /** What the URL is, for the refusal text: 'RPC URL', 'webhook URL'. */
  what: string;
  /** The guard's DNS lookup (tests steer it); default: the system resolver. */
  resolve?: ResolveHost | undefined;
  refused?: RefusedError;
}

export interface UrlPolicy {
  /** The guarded fetch for a URL given through the API; undefined (the plain fetch) for a trusted one. */
  fetchFor(url: string): typeof fetch | undefined;
  /** Throws VALIDATION_FAILED naming the field, the host and the rule when the guard refuses `url`. */
  check(url: string, field: string): Promise<void>;
  close(): Promise<void>;
}

export function createUrlPolicy(options: UrlPolicyOptions): UrlPolicy {
  const trusted = new Set(options.trusted);
  const guard = createUrlGuard(options.settings, {
    resolve: options.resolve,
    ...(options.refused ? { refused: options.refused } : {}),
  });
  return {
    fetchFor: (url) => (trusted.has(url) ? undefined : guard.fetch),
    async check(url, field) {
      if (trusted.has(url)) return;
      const refusal = await guard.check(url);
      if (refusal) throw new ValidationError(`'${field}': ${options.what} refused: ${refusal}`);
    },
    close: () => guard.close(),
  };
}

/**
 * Webhook URLs: the address rules, switched by WEBHOOK_BLOCK_PRIVATE_IPS (metadata always refused), not RPC_ALLOWED_HOSTS,
 * which lists RPC providers, not receivers. The config file's notifications are the operator's and stay trusted.
 */
export function createWebhookUrlPolicy(
  config: { blockPrivateIps: boolean; notifications: ReadonlyArray<{ url: string }> },
  resolve?: ResolveHost,
): UrlPolicy {
  const settings = {
    allowedHosts: [],
    blockPrivateIps: config.blockPrivateIps,
    blockSetting: 'WEBHOOK_BLOCK_PRIVATE_IPS',
  };
  return createUrlPolicy({ settings, trusted: config.notifications.map((n) => n.url), what: 'webhook URL', resolve });
}
