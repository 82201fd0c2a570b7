// The webhook signature: base64(HMAC-SHA256(signing_key, raw body bytes)), as the reference product signs.
import { createHmac } from 'node:crypto';

export function sign(signingKey: string, body: string | Buffer): string {
  return createHmac('sha256', signingKey).update(body).digest('base64');
}
