// One call of a remote signer (Vault, Turnkey, CDP): bounded by a deadline, and its failure told as one sentence that
// names the signer and the cause. Never the request or the answer's body, which may echo a credential.

/** The most of a provider's answer kept for the debug log. */
const DETAIL_MAX = 2000;

/**
 * A remote signer's refusal or failure; `message` is fit for the API and the log as it is: our sentence, from the
 * provider's status or code. `detail` is the provider's own text (its message or body): for the debug log only,
 * scrubbed first (scrubProviderText), and not enumerable, so no error serializer copies it into a line.
 */
export class RemoteSignerError extends Error {
  override name = 'RemoteSignerError';
  declare detail?: string;
  constructor(message: string, detail?: unknown) {
    super(message);
    const text = detail === undefined ? '' : providerText(detail);
    if (text) Object.defineProperty(this, 'detail', { value: text, enumerable: false, writable: true });
  }
}

/** A provider's error or body as one bounded text (an Error's name and message; a string as it is). */
function providerText(detail: unknown): string {
  if (typeof detail === 'string') return detail.slice(0, DETAIL_MAX);
  if (detail instanceof Error) return `${detail.name}: ${detail.message}`.slice(0, DETAIL_MAX);
  try {
    return String(JSON.stringify(detail)).slice(0, DETAIL_MAX);
  } catch {
    return '';
  }
}

// What a request carries that authenticates it, however an endpoint repeats it: a header or form field by name
// (`name: value`, `"name":"value"`, `name=value`), a bearer token, a JWT, a SigV4 signature.
const CREDENTIAL_FIELDS =
  /((?:authorization|proxy-authorization|x-amz-security-token|x-amz-content-sha256|x-vault-token|x-stamp|x-wallet-auth|x-identity-header|x-ms-authorization-auxiliary|client_secret|client_assertion|secret_id|role_id|client_token|access_token|api_private_key|api_key_secret|wallet_secret|private_key)["']?\s*[:=]\s*["']?)([^"'&\s,}]+)/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const SIGV4 = /\b(Signature|Credential)=[^,\s"']+/g;

/** A provider's text with the secrets given and every credential-shaped part replaced: fit for a debug line. */
export function scrubProviderText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].filter((v) => v.length >= 6).sort((a, b) => b.length - a.length)) {
    out = out
      .replaceAll(secret, '[redacted]')
      .replaceAll(JSON.stringify(secret).slice(1, -1), '[redacted]')
      .replaceAll(encodeURIComponent(secret), '[redacted]');
  }
  return out
    .replace(CREDENTIAL_FIELDS, '$1[redacted]')
    .replace(BEARER, '$1 [redacted]')
    .replace(JWT, '[redacted]')
    .replace(SIGV4, '$1=[redacted]');
}

/** `url` as an http(s) base URL, or an Error naming the signer and where the URL is set (`what`). */
export function baseUrl(signerId: string, url: string, what: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new RemoteSignerError(`signer '${signerId}': ${what} must be an http(s) URL (https://host[:port])`);
  return url.replace(/\/+$/, '');
}

/** Why an HTTP status failed, in words an operator acts on. */
export function statusCause(status: number): string {
  if (status === 401 || status === 403) return `HTTP ${status}: authentication refused (check the credentials)`;
  if (status === 404) return 'HTTP 404: not found (check the key name and the mount point)';
  if (status === 429) return 'HTTP 429: throttled by the service';
  if (status >= 500) return `HTTP ${status}: the service failed`;
  return `HTTP ${status}`;
}

/** Why a request never got an answer: refused connection, DNS, TLS (undici's `cause` code, node-fetch's `code`). */
export function networkCause(err: unknown): string | undefined {
  const code = (err as { cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code;
  if (err instanceof TypeError && /fetch failed/i.test(err.message))
    return typeof code === 'string' ? `unreachable (${code})` : 'unreachable';
  if ((err as Error)?.name === 'FetchError' && typeof code === 'string') return `unreachable (${code})`;
  return undefined;
}

/**
 * Runs `call` with an AbortSignal that fires after `timeoutMs`; the promise settles by then even when the client does
 * not honour the signal. `label` is e.g. "signer 'x': vault login". RemoteSignerErrors pass through as they are.
 */
export async function remoteCall<T>(
  label: string,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new RemoteSignerError(`${label}: no answer within ${timeoutMs} ms (timed out)`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), deadline]);
  } catch (err) {
    if (err instanceof RemoteSignerError) throw err;
    if (controller.signal.aborted)
      throw new RemoteSignerError(`${label}: no answer within ${timeoutMs} ms (timed out)`);
    const unreachable = networkCause(err);
    if (unreachable) throw new RemoteSignerError(`${label}: ${unreachable}`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** An error answer's body, bounded, for RemoteSignerError's debug-only `detail` ('' when it cannot be read). */
export async function bodyText(response: Response): Promise<string> {
  try {
    return (await response.text()).slice(0, DETAIL_MAX);
  } catch {
    return '';
  }
}

/** A JSON answer, or a RemoteSignerError naming the status (the body is not quoted: it may echo the request). */
// biome-ignore lint/suspicious/noExplicitAny: a remote signer's JSON answer: each caller reads the fields its API documents
export async function jsonOrThrow(label: string, response: Response): Promise<any> {
  if (!response.ok) throw new RemoteSignerError(`${label}: ${statusCause(response.status)}`, await bodyText(response));
  try {
    return await response.json();
  } catch {
    throw new RemoteSignerError(`${label}: the answer is not JSON`);
  }
}
