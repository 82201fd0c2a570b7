// One call of a remote signer (Vault, Turnkey, CDP): bounded by a deadline, and its failure told as one sentence that
// names the signer and the cause. Never the request or the answer's body, which may echo a credential.

/** SIGNER_TIMEOUT_MS: how long one call to a remote signer may take (default 10 s); a slow service fails the sign. */
export { signerTimeoutFromEnv as signerTimeoutMs } from '../config/config.ts';

/** A remote signer's refusal or failure; `message` is fit for the API and the log as it is. */
export class RemoteSignerError extends Error {
  override name = 'RemoteSignerError';
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
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return typeof code === 'string' ? `unreachable (${code})` : 'unreachable';
  if ((err as Error)?.name === 'FetchError' && typeof code === 'string') return `unreachable (${code})`;
  return undefined;
}

/**
 * Runs `call` with an AbortSignal that fires after `timeoutMs`; the promise settles by then even when the client does
 * not honour the signal. `label` is e.g. "signer 'x': vault login". RemoteSignerErrors pass through as they are.
 */
export async function remoteCall<T>(label: string, timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
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
    if (controller.signal.aborted) throw new RemoteSignerError(`${label}: no answer within ${timeoutMs} ms (timed out)`);
    const unreachable = networkCause(err);
    if (unreachable) throw new RemoteSignerError(`${label}: ${unreachable}`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** A JSON answer, or a RemoteSignerError naming the status (the body is not quoted: it may echo the request). */
export async function jsonOrThrow(label: string, response: Response): Promise<any> {
  if (!response.ok) {
    await response.body?.cancel();
    throw new RemoteSignerError(`${label}: ${statusCause(response.status)}`);
  }
  try {
    return await response.json();
  } catch {
    throw new RemoteSignerError(`${label}: the answer is not JSON`);
  }
}
