// The worker's side of the sandbox's `fetch` (runtime/isolate/prelude/fetch.ts): the egress policy, and a request bounded in
// size and time. A plugin reaches only the origins its operator listed (`allowed_origins` in its config entry;
// none by default), every redirect hop included. Nothing of ours rides along: no credentials, no cookies, no proxy
// settings — only the headers the plugin set (and a cross-origin redirect drops its Authorization and Cookie).
import type { RuntimeLimits } from '../protocol.ts';

export interface EgressRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  /** Base64, or null. */
  body: string | null;
}

export interface EgressOutcome {
  /** The reply handed to the sandbox: `{"ok":true,"value":{…}}` or `{"ok":false,"error":{…}}`. */
  reply: string;
  /** For emit_traces: never the query string or userinfo (they may carry the plugin's own secrets). */
  trace: { method: string; url: string; status: number | null; bytes: number; error?: string };
}

const MAX_REDIRECTS = 5;
/** Set by the transport itself, or ways to reach somewhere else than the URL says. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

export class EgressError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, status: number, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

const traceUrl = (u: URL | undefined, raw: string) => (u ? `${u.origin}${u.pathname}` : raw.slice(0, 200));

function check(url: URL, allowed: ReadonlySet<string>): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new EgressError(
      'EGRESS_DENIED',
      `fetch: only http and https URLs can be fetched from a plugin, not ${url.protocol}`,
      403,
    );
  if (!allowed.has(url.origin)) {
    const list = allowed.size ? `it may reach only ${[...allowed].join(', ')}` : 'it may reach no origin';
    throw new EgressError(
      'EGRESS_DENIED',
      `fetch to ${url.origin} refused by this plugin's egress policy: ${list} (the operator lists origins in the plugin's config entry, "allowed_origins")`,
      403,
      { origin: url.origin, allowed_origins: [...allowed] },
    );
  }
}

function headersOf(req: EgressRequest): Headers {
  const headers = new Headers();
  for (const pair of Array.isArray(req.headers) ? req.headers : []) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') continue;
    if (FORBIDDEN_HEADERS.has(pair[0].toLowerCase())) continue;
    headers.append(pair[0], pair[1]);
  }
  if (!headers.has('user-agent')) headers.set('user-agent', 'relaybox-plugin');
  return headers;
}

/** Reads at most `max` bytes of the body; past it, the response is cancelled and refused. */
async function readCapped(res: Response, max: number, url: URL): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  const tooLarge = () =>
    new EgressError('FETCH_RESPONSE_TOO_LARGE', `fetch: the response from ${url.origin} exceeds ${max} bytes`, 502, {
      limit: max,
    });
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks, total);
}

interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: Buffer | undefined;
}

/** Follows up to MAX_REDIRECTS redirects by hand, each hop checked against the policy. */
async function follow(
  first: Hop,
  allowed: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<{ res: Response; url: URL; redirected: boolean }> {
  let hop = first;
  for (let i = 0; ; i++) {
    const res = await fetch(hop.url, {
      method: hop.method,
      headers: hop.headers,
      body: hop.body,
      redirect: 'manual',
      signal,
      credentials: 'omit',
    } as RequestInit);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || res.status === 304 || !location)
      return { res, url: hop.url, redirected: i > 0 };
    await res.body?.cancel().catch(() => {});
    if (i === MAX_REDIRECTS) throw new EgressError('FETCH_FAILED', `fetch: more than ${MAX_REDIRECTS} redirects`, 502);
    const next = new URL(location, hop.url);
    check(next, allowed);
    const headers = new Headers(hop.headers);
    if (next.origin !== hop.url.origin) {
      headers.delete('authorization');
      headers.delete('cookie');
    }
    const toGet = res.status === 303 || ((res.status === 301 || res.status === 302) && hop.method === 'POST');
    if (toGet) headers.delete('content-type');
    hop = { url: next, method: toGet ? 'GET' : hop.method, headers, body: toGet ? undefined : hop.body };
  }
}

/** How long after the call's deadline a fetch's own timer ends it, should the call's end not have. */
const FETCH_TIMER_GRACE_MS = 100;

/**
 * One fetch of a plugin call: refused unless the policy allows its origin; bounded by the call's deadline, its
 * lifetime (`signal`), `maxFetchResponseBytes` and what is left of the call's byte budget.
 */
export async function egressFetch(
  argsJson: string,
  allowed: ReadonlySet<string>,
  deadline: number,
  signal: AbortSignal,
  limits: RuntimeLimits,
  budget: { bytes: number },
): Promise<EgressOutcome> {
  let req: EgressRequest;
  let url: URL | undefined;
  let method = 'GET';
  try {
    req = JSON.parse(argsJson) as EgressRequest;
    method = typeof req.method === 'string' && /^[A-Za-z]{1,16}$/.test(req.method) ? req.method.toUpperCase() : 'GET';
    try {
      url = new URL(String(req.url));
    } catch {
      throw new EgressError('FETCH_FAILED', `fetch: invalid URL ${JSON.stringify(String(req.url).slice(0, 200))}`, 400);
    }
    check(url, allowed);
    const body = typeof req.body === 'string' ? Buffer.from(req.body, 'base64') : undefined;
    if (body && body.length > limits.maxFetchRequestBytes)
      throw new EgressError(
        'FETCH_BODY_TOO_LARGE',
        `fetch: request body exceeds ${limits.maxFetchRequestBytes} bytes`,
        413,
        { limit: limits.maxFetchRequestBytes },
      );
    // The call's end aborts `signal` at its deadline and the call answers TIMEOUT. The fetch's own timer is a safety
    // net set a moment later: at the deadline itself it could fire first, and a plugin that caught its error would
    // answer before the call's timer (seen under load).
    const left = deadline - Date.now() + FETCH_TIMER_GRACE_MS;
    const timed = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, left))]);
    let out: Awaited<ReturnType<typeof follow>>;
    let data: Buffer;
    try {
      out = await follow(
        { url, method, headers: headersOf(req), body: method === 'GET' || method === 'HEAD' ? undefined : body },
        allowed,
        timed,
      );
      data = await readCapped(out.res, Math.min(limits.maxFetchResponseBytes, budget.bytes), out.url);
    } catch (err) {
      if (err instanceof EgressError) throw err;
      if (timed.aborted && !signal.aborted)
        throw new EgressError(
          'FETCH_TIMEOUT',
          `fetch to ${url.origin} did not complete before the plugin call's deadline`,
          504,
        );
      throw new EgressError(
        'FETCH_FAILED',
        `fetch to ${url.origin} failed: ${(err as Error)?.cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error)?.message}`,
        502,
      );
    }
    budget.bytes -= data.length;
    const value = {
      status: out.res.status,
      statusText: out.res.statusText,
      url: out.url.href,
      redirected: out.redirected,
      headers: [...out.res.headers],
      body: data.toString('base64'),
    };
    return {
      reply: JSON.stringify({ ok: true, value }),
      trace: { method, url: traceUrl(out.url, ''), status: out.res.status, bytes: data.length },
    };
  } catch (err) {
    const e =
      err instanceof EgressError
        ? err
        : new EgressError('FETCH_FAILED', `fetch failed: ${(err as Error)?.message}`, 502);
    return {
      reply: JSON.stringify({
        ok: false,
        error: { code: e.code, message: e.message, status: e.status, details: e.details },
      }),
      trace: { method, url: traceUrl(url, ''), status: null, bytes: 0, error: e.code },
    };
  }
}
