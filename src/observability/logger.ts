// The service logger: pino JSON lines, with every secret-bearing field redacted and known secret values scrubbed.
import { createRequire } from 'node:module';
import path from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { processEnv, type Config, type LogOutput, type SecretRef } from '../config/config.ts';
import { allSecretFieldPaths, getPath, isSignerCredentialVariable, SIGNER_SCHEMAS } from '../config/signer-schemas.ts';
import { urlPassword } from '../config/url-password.ts';

interface RollOptions {
  file: string;
  extension: string;
  frequency: 'daily';
  dateFormat: string;
  size: string;
  mkdir: boolean;
  sync: boolean;
}
// pino-roll ships no types: its one export, as documented. Required only with LOG_MODE=file: it loads date-fns
// (~300 modules), resident for the process's life otherwise.
const loadPinoRoll = () =>
  createRequire(import.meta.url)('pino-roll') as (
    options: RollOptions,
  ) => Promise<DestinationStream & { flushSync?(): void }>;

export const REDACTED_PATHS = [
  ...new Set([
    'req.headers.authorization',
    'headers.authorization',
    'authorization',
    'apiKey',
    'api_key',
    'signing_key',
    '*.signing_key',
    'private_key',
    '*.private_key',
    'passphrase',
    '*.passphrase',
    'config.key',
    '*.config.key',
    'secret',
    // Every secret field of every signer type's config (role_id, api_key_secret, pin, …), at any of the depths an entry is logged.
    ...allSecretFieldPaths().flatMap((field) => [field, `*.${field}`, `config.${field}`, `*.config.${field}`]),
  ]),
];

const CENSOR = '[redacted]';

/**
 * The secret values the service holds from its start: the API key, the storage key, signer keys,
 * the signer clients' credential variables and config-file webhook signing keys. Field redaction cannot catch a secret a client put where
 * no secret belongs (a URL path, an error text), so these are also scrubbed from every line.
 */
export function secretsOf(config: Config, env: NodeJS.ProcessEnv = processEnv()): string[] {
  const values = [
    config.apiKey,
    config.storageEncryptionKey,
    config.storageEncryptionKeyPrevious,
    ...[config.databaseUrl, config.redisUrl].map(urlPassword),
  ];
  for (const s of config.file.signers) {
    values.push(s.private_key, s.private_key_env ? env[s.private_key_env] : undefined);
    for (const field of SIGNER_SCHEMAS[s.type].secretFields) {
      const ref = s.config ? (getPath(s.config, field) as SecretRef | undefined) : undefined;
      if (ref) values.push(ref.type === 'plain' ? ref.value : env[ref.value]);
    }
  }
  for (const n of config.file.notifications) values.push(n.signing_key);
  // The signer clients' own credentials (AWS_SESSION_TOKEN, AZURE_CLIENT_SECRET, VAULT_TOKEN, …): a provider that repeats its request puts them in an error.
  for (const [name, value] of Object.entries(env)) if (isSignerCredentialVariable(name)) values.push(value);
  const out = new Set<string>();
  for (const v of values) {
    // Short values would scrub ordinary words; every secret the config accepts is longer (a short keystore passphrase is not scrubbed, only redacted by field).
    if (!v || v.length < 16) continue;
    // As written in a JSON line: raw, JSON-escaped, percent-encoded (a URL), and hex without 0x.
    out.add(v).add(JSON.stringify(v).slice(1, -1)).add(encodeURIComponent(v));
    if (/^0x[0-9a-fA-F]+$/.test(v)) out.add(v.slice(2));
  }
  // Longest first, so a secret is never half-replaced by one of its own forms.
  return [...out].sort((a, b) => b.length - a.length);
}

export function createLogger(level: string, destination?: DestinationStream, secrets: readonly string[] = []): Logger {
  const hooks = secrets.length
    ? {
        streamWrite: (line: string) =>
          secrets.reduce((text, secret) => (text.includes(secret) ? text.replaceAll(secret, CENSOR) : text), line),
      }
    : {};
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: CENSOR }, base: { service: 'relaybox' }, hooks },
    destination,
  );
}

/** The base name of LOG_MODE=file's files: `<dir>/relayer.<yyyy-MM-dd>.<n>.log` (the reference writes `relayer-<date>.<n>.log`). */
export function logFileBase(output: Extract<LogOutput, { mode: 'file' }>): string {
  return path.join(output.dir, 'relayer');
}

/**
 * LOG_MODE=file: rotating files (pino-roll), a new one each day and whenever one passes LOG_MAX_SIZE bytes. Written
 * synchronously, as pino's own file destination, so the last lines before an exit are on disk. stdout: undefined.
 */
export async function logDestination(output: LogOutput): Promise<DestinationStream | undefined> {
  if (output.mode === 'stdout') return undefined;
  return loadPinoRoll()({
    file: logFileBase(output),
    extension: '.log',
    frequency: 'daily',
    dateFormat: 'yyyy-MM-dd',
    size: `${output.maxBytes}b`,
    mkdir: true,
    sync: true,
  });
}
