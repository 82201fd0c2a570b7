// How a webhook delivery is doing, in an operator's words: the class of its last error (from the texts the service's
// delivery writes, src/domain/webhooks/delivery.ts) rather than the raw text, and when it is tried next.
import { ago } from './ui.ts';

export interface DeliveryState {
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
}

const CLASSES: Array<[RegExp, string]> = [
  [/ECONNREFUSED/i, 'connection refused'],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, 'host not found'],
  [/ECONNRESET|EPIPE|socket hang up|UND_ERR_SOCKET/i, 'connection reset'],
  [/ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|no answer within/i, 'timed out'],
  [/CERT|SSL|TLS|self[- ]signed|UNABLE_TO_VERIFY/i, 'TLS error'],
  [/EHOSTUNREACH|ENETUNREACH/i, 'host unreachable'],
  [/blocked|not allowed|private/i, 'blocked by the URL guard'],
  [/signing key/i, 'signing key unavailable'],
  [/has no URL/i, 'no URL set'],
  [/notification deleted/i, 'notification deleted'],
];

/** "HTTP 500 from the receiver", "connection refused", ...; null when there was no error. */
export function errorClass(lastError: string | null): string | null {
  if (!lastError) return null;
  const http = /receiver answered HTTP (\d{3})/.exec(lastError);
  if (http) return `HTTP ${http[1]} from the receiver`;
  for (const [pattern, name] of CLASSES) if (pattern.test(lastError)) return name;
  return lastError.startsWith('connection error') ? 'connection error' : 'delivery error';
}

/** Failing: given up, or still retrying after a failed attempt (a dead receiver's events stay pending for a while). */
export const isFailing = (d: DeliveryState) =>
  d.status === 'failed' || (d.status === 'pending' && d.attempts > 0 && d.last_error !== null);

/** When it is tried next, never a time already past: a due event waits for a free slot or an earlier event. */
export function nextTry(d: DeliveryState, now = Date.now()): string | null {
  if (d.status !== 'pending' || !d.next_attempt_at) return null;
  if (Date.parse(d.next_attempt_at) <= now) return d.attempts === 0 ? 'queued: due now' : 'retry due now';
  return `${d.attempts === 0 ? 'first try' : 'retry'} ${ago(d.next_attempt_at, now)}`;
}
