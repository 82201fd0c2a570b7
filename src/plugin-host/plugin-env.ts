// What the runtime may hand plugins of the service's environment. The reference's plugins read their settings there
// (STELLAR_NETWORK, PLUGIN_ADMIN_SECRET, …) and the reference hands them everything. Here each plugin receives only the
// variables its own code names or its entry lists (runtime/process/plugin-env.ts), and of these never a credential
// of the service: this denylist is the second line. The rule is in docs/plugins.md ("The service's environment").
import type { Config } from '../config/config.ts';
import { urlPassword } from '../config/url-password.ts';

/** Our own settings (and the reference's) that hold a key, a credential or a URL that may carry a password. */
const OWN_SECRETS = new Set([
  'API_KEY',
  'STORAGE_ENCRYPTION_KEY',
  'STORAGE_ENCRYPTION_KEY_PREVIOUS',
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_READER_URL',
  'WEBHOOK_SIGNING_KEY',
  'RABBITMQ_URL',
]);

/** Whole families: cloud and secret-store credentials (signers, queues), storage and database connections. */
const CREDENTIAL_PREFIXES = [
  'AWS_',
  'AMAZON_',
  'GOOGLE_',
  'GCP_',
  'GCLOUD_',
  'CLOUDSDK_',
  'AZURE_',
  'MSI_',
  'IDENTITY_',
  'VAULT_',
  'BAO_',
  'TURNKEY_',
  'CDP_',
  'PKCS11_',
  'KEYSTORE_',
  'STORAGE_',
  'DATABASE_',
  'POSTGRES_',
  'PG',
  'REDIS_',
  'RABBITMQ_',
];

/** Words that name a credential wherever they stand in a variable's name. */
const CREDENTIAL_WORDS = ['PASSPHRASE', 'PASSWORD', 'PRIVATE_KEY', 'CREDENTIAL'];

/** A name the rule withholds whatever its value. */
function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    OWN_SECRETS.has(upper) ||
    CREDENTIAL_PREFIXES.some((p) => upper.startsWith(p)) ||
    CREDENTIAL_WORDS.some((w) => upper.includes(w))
  );
}

/** Every `{ type: 'env' | 'plain', value }` reference inside a signer's config: a secret field (before or after load). */
function collectRefs(node: unknown, env: NodeJS.ProcessEnv, names: Set<string>, values: Set<string>): void {
  if (node === null || typeof node !== 'object') return;
  const ref = node as { type?: unknown; value?: unknown };
  if ((ref.type === 'env' || ref.type === 'plain') && typeof ref.value === 'string') {
    if (ref.type === 'env') {
      names.add(ref.value);
      values.add(env[ref.value] ?? '');
    } else values.add(ref.value);
    return;
  }
  for (const child of Object.values(node)) collectRefs(child, env, names, values);
}

/** The variables the config names as a secret, and every secret value the loaded config holds. */
function configSecrets(config: Config, env: NodeJS.ProcessEnv): { names: Set<string>; values: Set<string> } {
  const names = new Set<string>();
  const values = new Set<string>([
    config.apiKey,
    config.storageEncryptionKey ?? '',
    config.storageEncryptionKeyPrevious ?? '',
  ]);
  for (const url of [config.databaseUrl, config.redisUrl]) values.add(url ?? '').add(urlPassword(url) ?? '');
  for (const s of config.file.signers) {
    values.add(s.private_key ?? '');
    if (s.private_key_env) {
      names.add(s.private_key_env);
      values.add(env[s.private_key_env] ?? '');
    }
    collectRefs(s.config, env, names, values);
  }
  for (const n of config.file.notifications) {
    values.add(typeof n.signing_key === 'string' ? n.signing_key : '');
    if (n.signing_key_env) {
      names.add(n.signing_key_env);
      values.add(env[n.signing_key_env] ?? '');
    }
    collectRefs(n.signing_key, env, names, values);
  }
  values.delete('');
  return { names, values };
}

/**
 * The service's environment as every plugin sees it (a plugin's configured `env` goes over it): a variable is withheld
 * when its name is one of our secret settings or a credential family, when the config names it as a secret, when its
 * value is (or, from 8 characters, contains) a secret the config holds, or is a URL with a password, whatever the
 * variable is called. A plugin receives of what is left only the names its code names or its entry lists.
 */
export function pluginEnvironment(
  config: Config,
  env: NodeJS.ProcessEnv,
): { env: Record<string, string>; withheld: string[] } {
  const secrets = configSecrets(config, env);
  const long = [...secrets.values].filter((v) => v.length >= 8);
  const out: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) continue;
    // A URL with a password in it (HTTP_PROXY=http://user:pass@…) is a credential whatever it is called.
    const secret =
      isCredentialName(name) ||
      secrets.names.has(name) ||
      secrets.values.has(value) ||
      long.some((v) => value.includes(v)) ||
      (value.includes('@') && urlPassword(value) !== undefined);
    if (secret) withheld.push(name);
    else out[name] = value;
  }
  return { env: out, withheld: withheld.sort() };
}
