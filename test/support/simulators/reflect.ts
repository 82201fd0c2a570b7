// A provider that repeats what it was sent: each simulator's `reflect` fault answers its own error shape with this
// text as the provider's message, as a misbehaving or hostile endpoint may. Whatever authenticates the request (an
// Authorization header, a session token, a client secret in the body) is then in the error the client raises.
import type { IncomingMessage } from 'node:http';

/** Marks the reflected text: an answer or a log line that holds it repeated the provider's words. */
export const REFLECTED = 'REFLECTED-REQUEST';

/** The request as the endpoint received it: method, path, every header, the body. */
export function reflection(req: IncomingMessage, body: string | Buffer): string {
  return `${REFLECTED} ${req.method} ${req.url} headers=${JSON.stringify(req.headers)} body=${String(body)}`;
}
