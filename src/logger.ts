// The service logger: pino JSON lines, with every secret-bearing field redacted.
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'api_key',
  'signing_key',
  '*.signing_key',
  'private_key',
  '*.private_key',
  'secret',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'relaybox' } }, destination);
}
