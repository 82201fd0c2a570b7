// The console's only way to the service: the API, with the key typed in (kept in sessionStorage, sent as a header,
// never in a URL). Every answer is the API's envelope; a failure becomes an ApiError with the API's own reason.

const KEY = 'relaybox.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface Answer<T> {
  data: T;
  pagination?: { current_page: number; per_page: number; total_items: number };
  metadata?: { logs?: Array<{ level: string; message: string }>; traces?: unknown[] };
}

/** `body` is JSON text or a value to encode. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${session.key() ?? ''}`,
    Accept: 'application/json',
  };
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  const res = await fetch(`/api/v1${path}`, { method: init.method ?? 'GET', headers, body, cache: 'no-store' });
  const text = await res.text();
  let parsed: { success?: boolean; data?: unknown; error?: unknown; message?: unknown } | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(res.status, `HTTP ${res.status}: the answer is not JSON`);
  }
  if (!res.ok || parsed?.success === false) {
    const reason =
      typeof parsed?.error === 'string'
        ? parsed.error
        : typeof parsed?.message === 'string'
          ? parsed.message
          : `HTTP ${res.status}`;
    throw new ApiError(res.status, reason);
  }
  return parsed as Answer<T>;
}

export const enc = encodeURIComponent;
