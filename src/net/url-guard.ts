// The guard on URLs given through the API (RPC URLs, webhook URLs): RPC_ALLOWED_HOSTS and RPC_BLOCK_PRIVATE_IPS,
// checked when the URL is given and again when a connection is opened, so a name that later resolves to a private
// address (DNS rebinding) or a redirect to one is refused at connect. Neutral ground: the chains and the webhook
// delivery both use it, and neither may import the other.
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { addressRule } from './ip-ranges.ts';

/** A connection the guard refused: the message names the host and the rule. */
export class UrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlRefusedError';
  }
}

/** Makes the error a refused connection fails with (the chains use their own, which their failure texts recognise). */
export type RefusedError = (message: string) => Error;

export interface UrlGuardSettings {
  /** RPC_ALLOWED_HOSTS: when not empty, the only hosts an API-given URL may name (case-insensitive, exact). */
  allowedHosts: readonly string[];
  /** RPC_BLOCK_PRIVATE_IPS: refuse loopback, private, link-local, unique-local and reserved addresses. */
  blockPrivateIps: boolean;
  /** The variable that sets blockPrivateIps, named in refusals (default RPC_BLOCK_PRIVATE_IPS). */
  blockSetting?: string;
}

/** A host name's addresses; the guard's DNS lookup, replaceable so a test can steer what a name resolves to. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export interface UrlGuard {
  /** Why an API-given URL is refused (names the host and the rule), or null. Resolves the host once. */
  check(url: string): Promise<string | null>;
  /** fetch whose every connection is checked again (address, allowed hosts): for guarded URLs only. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

const defaultResolve: ResolveHost = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });
/** A name that does not resolve at once is accepted at creation: the connect-time check still holds. */
const CHECK_LOOKUP_MS = 3_000;

const bare = (host: string) =>
  host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

const whileOn = (settings: UrlGuardSettings) =>
  `refused while ${settings.blockSetting ?? 'RPC_BLOCK_PRIVATE_IPS'} is on`;

function ruleText(host: string, address: string, settings: UrlGuardSettings): string | null {
  const found = addressRule(address, settings.blockPrivateIps);
  if (!found) return null;
  const what =
    host === address ? `host '${host}' is ${found.rule}` : `host '${host}' resolves to ${address}, ${found.rule}`;
  return `${what}: ${found.always ? 'always refused' : whileOn(settings)}`;
}

/** What the host itself breaks, before any lookup: the allow-list, an internal name, or an address literal's range. */
function hostRefusal(hostname: string, settings: UrlGuardSettings): string | null {
  const host = bare(hostname);
  if (settings.allowedHosts.length > 0 && !settings.allowedHosts.some((a) => bare(a) === host))
    return `host '${host}' is not in RPC_ALLOWED_HOSTS`;
  if (host === 'metadata.google.internal') return `host '${host}' is a cloud metadata host: always refused`;
  if (settings.blockPrivateIps && (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal'))) {
    return `host '${host}' names an internal host (localhost, *.localhost, *.internal): ${whileOn(settings)}`;
  }
  return isIP(host) ? ruleText(host, host, settings) : null;
}

function firstRefusedAddress(
  host: string,
  addresses: readonly LookupAddress[],
  settings: UrlGuardSettings,
): string | null {
  for (const { address } of addresses) {
    const refusal = ruleText(host, address, settings);
    if (refusal) return refusal;
  }
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/** The socket's lookup: every address of the name is checked, so no answer of the resolver slips through. */
function guardedLookup(settings: UrlGuardSettings, resolve: ResolveHost, refused: RefusedError) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        const refusal = firstRefusedAddress(bare(hostname), addresses, settings);
        if (refusal) return callback(refused(refusal));
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err),
    );
  };
}

/** undici's own connector, behind the host rules (also for redirects) and the guarded lookup. */
function guardedConnector(
  build: typeof buildConnector,
  settings: UrlGuardSettings,
  resolve: ResolveHost,
  refused: RefusedError,
): buildConnector.connector {
  const connect = build({ lookup: guardedLookup(settings, resolve, refused) } as buildConnector.BuildOptions);
  return (options, callback) => {
    const refusal = hostRefusal(options.hostname, settings);
    if (refusal) return callback(refused(refusal), null);
    return connect(options, callback);
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export function createUrlGuard(
  settings: UrlGuardSettings,
  options: { resolve?: ResolveHost | undefined; refused?: RefusedError } = {},
): UrlGuard {
  const resolve = options.resolve ?? defaultResolve;
  const refused = options.refused ?? ((message: string) => new UrlRefusedError(message));
  // undici (~7 MiB resident, measured) loads on the first guarded fetch: most instances never fetch a URL given
  // through the API, and checking one needs only DNS.
  let client: Promise<{ agent: Agent; fetch: typeof undiciFetch }> | undefined;
  const connected = () =>
    (client ??= import('undici').then((undici) => ({
      agent: new undici.Agent({ connect: guardedConnector(undici.buildConnector, settings, resolve, refused) }),
      fetch: undici.fetch,
    })));
  const guardedFetch = (async (input: string | URL, init?: RequestInit) => {
    const { agent, fetch } = await connected();
    return fetch(input, { ...(init as object), dispatcher: agent });
  }) as unknown as typeof fetch;

  async function check(url: string): Promise<string | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'it is not a URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return `scheme '${parsed.protocol.slice(0, -1)}' is not http or https`;
    const host = bare(parsed.hostname);
    const refusal = hostRefusal(parsed.hostname, settings);
    if (refusal || isIP(host)) return refusal;
    const addresses = await withTimeout(resolve(host), CHECK_LOOKUP_MS).catch(() => 'late' as const);
    return addresses === 'late' ? null : firstRefusedAddress(host, addresses, settings);
  }

  return { check, fetch: guardedFetch, close: async () => client && (await client).agent.close() };
}
