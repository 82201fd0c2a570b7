// The `config` object of each signer type, as the OpenZeppelin Relayer (v1.8.0, src/models/signer/config.rs) writes it,
// plus our `pkcs11`: its JSON Schema (field names, required fields and defaults as the reference's) and the paths of
// its secret fields. The config file schema, the management API, the log redaction and the secret store follow it.
// Which types may be used is SUPPORTED_SIGNER_TYPES (signer-types.ts): the types whose adapter exists.

/** `{ "type": "env", "value": "NAME" }` (read from the environment at start) or `{ "type": "plain", "value": "…" }`. */
export const secretRef = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'value'],
  properties: { type: { enum: ['env', 'plain'] }, value: { type: 'string', minLength: 1 } },
} as const;

/** A secret given by the environment variable it is in, or in plain; after load always `plain`. */
export interface SecretRef {
  type: 'env' | 'plain';
  value: string;
}

// As the reference's serde reads the file: a `String` may be empty (its examples leave placeholders empty; an adapter
// refuses an empty field it needs, naming the signer and the field), an `Option` may be null or absent.
const text = { type: 'string' } as const;
const optional = (schema: object, expect: string) => ({
  'x-expect': `${expect}, or null`,
  anyOf: [schema, { type: 'null' }],
});
const optText = optional(text, 'a string');
const optSecret = optional(secretRef, '{ "type": "env" | "plain", "value" }');
const withDefault = (value: string) => ({ type: 'string', default: value }) as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;

/** One object schema: these fields, only these, the required ones present. */
const object = (properties: Record<string, object>, required: string[], extra: object = {}) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
  ...extra,
});

/** Exactly one of two fields (pkcs11's token and key selectors). */
const oneOfFields = (a: string, b: string) => ({
  'x-expect': `an object with exactly one of '${a}' or '${b}'`,
  oneOf: [{ required: [a] }, { required: [b] }],
});

/** These secret fields present and not null. */
const needs = (fields: string[]) => ({
  required: fields,
  properties: Object.fromEntries(fields.map((f) => [f, secretRef])),
});

const local = object({ path: nonEmpty, passphrase: secretRef }, ['path', 'passphrase']);

const awsKms = object({ region: text, key_id: text }, ['region', 'key_id']);

// auth_type absent means client_secret (the reference's AzureKeyVaultSignerConfig::auth_type); each mode needs its ids.
const azureKeyVault = object(
  {
    auth_type: { enum: ['client_secret', 'managed_identity', 'workload_identity', null] },
    tenant_id: optSecret,
    client_id: optSecret,
    client_secret: optSecret,
    federated_token_file: optSecret,
    vault_url: text,
    key_name: text,
    key_version: optText,
  },
  ['vault_url', 'key_name'],
  {
    allOf: [
      {
        if: { properties: { auth_type: { enum: ['client_secret', null] } } },
        then: needs(['tenant_id', 'client_id', 'client_secret']),
      },
      {
        if: { required: ['auth_type'], properties: { auth_type: { const: 'workload_identity' } } },
        then: needs(['tenant_id', 'client_id']),
      },
    ],
  },
);

const turnkey = object(
  { api_public_key: text, api_private_key: secretRef, organization_id: text, private_key_id: text, public_key: text },
  ['api_public_key', 'api_private_key', 'organization_id', 'private_key_id', 'public_key'],
);

const cdp = object({ api_key_id: text, api_key_secret: secretRef, wallet_secret: secretRef, account_address: text }, [
  'api_key_id',
  'api_key_secret',
  'wallet_secret',
  'account_address',
]);

// mount_point absent: the adapter uses Vault's `secret` (KV v2) or `transit`, as the reference's services do.
const vault = object(
  { address: text, namespace: optText, role_id: secretRef, secret_id: secretRef, key_name: text, mount_point: optText },
  ['address', 'role_id', 'secret_id', 'key_name'],
);

const vaultTransit = object(
  {
    key_name: text,
    address: text,
    role_id: secretRef,
    secret_id: secretRef,
    pubkey: text,
    mount_point: optText,
    namespace: optText,
  },
  ['key_name', 'address', 'role_id', 'secret_id', 'pubkey'],
);

const googleCloudKms = object(
  {
    service_account: object(
      {
        project_id: text,
        private_key_id: secretRef,
        private_key: secretRef,
        client_email: secretRef,
        client_id: text,
        auth_uri: withDefault('https://accounts.google.com/o/oauth2/auth'),
        token_uri: withDefault('https://oauth2.googleapis.com/token'),
        auth_provider_x509_cert_url: withDefault('https://www.googleapis.com/oauth2/v1/certs'),
        // The reference's default, a placeholder naming one of its own service accounts; kept for identical loading.
        client_x509_cert_url: withDefault(
          'https://www.googleapis.com/robot/v1/metadata/x509/solana-signer%40forward-emitter-459820-r7.iam.gserviceaccount.com',
        ),
        universe_domain: withDefault('googleapis.com'),
      },
      ['project_id', 'private_key_id', 'private_key', 'client_email', 'client_id'],
    ),
    key: object(
      {
        location: withDefault('global'),
        key_ring_id: text,
        key_id: text,
        key_version: { type: 'integer', minimum: 0, default: 1 },
      },
      ['key_ring_id', 'key_id'],
    ),
  },
  ['service_account', 'key'],
);

/**
 * Ours: a key in any PKCS#11 token (an HSM, SoftHSM). `module_path`: the vendor's PKCS#11 library (.so). The token is
 * chosen by `token_label` or `slot` (a slot id), the key by `key_label` (CKA_LABEL) or `key_id` (CKA_ID, hex); `pin`
 * is the user PIN. EVM: a secp256k1 EC key; Solana and Stellar: an Ed25519 (CKK_EC_EDWARDS) key.
 */
const pkcs11 = object(
  {
    module_path: nonEmpty,
    token_label: nonEmpty,
    slot: { type: 'integer', minimum: 0 },
    pin: secretRef,
    key_label: nonEmpty,
    key_id: { type: 'string', pattern: '^(0x)?([0-9a-fA-F]{2})+$' },
  },
  ['module_path', 'pin'],
  { allOf: [oneOfFields('token_label', 'slot'), oneOfFields('key_label', 'key_id')] },
);

export interface SignerTypeSchema {
  /** The JSON Schema of the type's `config` object (file form: secrets are `{type, value}`). */
  schema: object;
  /** Paths (dot-separated) of its `{type: env|plain}` secret fields. */
  secretFields: readonly string[];
}

/**
 * The environment variables each signer type's client reads a credential from (besides those its config names by
 * `{type: env}`, which the config lists itself): the log scrubber hides their values wherever they appear.
 */
export const SIGNER_CREDENTIAL_VARIABLES: Record<string, readonly string[]> = {
  aws_kms: [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_SECURITY_TOKEN',
    'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  ],
  google_cloud_kms: [
    'GOOGLE_PRIVATE_KEY',
    'GOOGLE_PRIVATE_KEY_ID',
    'GOOGLE_CLIENT_EMAIL',
    'GOOGLE_API_KEY',
    'GCP_PRIVATE_KEY',
    'GCP_PRIVATE_KEY_ID',
    'GCP_CLIENT_EMAIL',
  ],
  azure_key_vault: [
    'AZURE_CLIENT_SECRET',
    'AZURE_CLIENT_CERTIFICATE_PASSWORD',
    'AZURE_PASSWORD',
    'IDENTITY_HEADER',
    'MSI_SECRET',
  ],
  vault: ['VAULT_TOKEN', 'VAULT_ROLE_ID', 'VAULT_SECRET_ID'],
  vault_transit: ['VAULT_TOKEN', 'VAULT_ROLE_ID', 'VAULT_SECRET_ID'],
  turnkey: ['TURNKEY_API_PRIVATE_KEY', 'TURNKEY_API_PUBLIC_KEY'],
  cdp: ['CDP_API_KEY_ID', 'CDP_API_KEY_SECRET', 'CDP_WALLET_SECRET'],
  pkcs11: ['PKCS11_PIN', 'HSM_PIN'],
};

// A variable of a signer client's family whose name says it holds a secret (AWS_…_TOKEN, AZURE_…_SECRET, …).
const CREDENTIAL_FAMILIES = /^(AWS|AMAZON|GOOGLE|GCP|GCLOUD|AZURE|MSI|IDENTITY|VAULT|BAO|TURNKEY|CDP|PKCS11|HSM)_/;
const CREDENTIAL_WORDS =
  /(SECRET|TOKEN|PASSWORD|PASSPHRASE|PRIVATE|ACCESS_KEY|API_KEY|CREDENTIAL|(^|_)PIN($|_)|HEADER)/;
// Where a credential is, not what it is: a path or an address (AZURE_FEDERATED_TOKEN_FILE, …_ENDPOINT).
const LOCATION = /_(FILE|PATH|URL|URI|ENDPOINT|HOST|REGION)$/;

/** Whether a variable of the service's environment holds a signer credential: listed above, or a family's secret by name. */
export function isSignerCredentialVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (Object.values(SIGNER_CREDENTIAL_VARIABLES).some((names) => names.includes(upper))) return true;
  return (
    CREDENTIAL_FAMILIES.test(upper) &&
    !LOCATION.test(upper) &&
    CREDENTIAL_WORDS.test(upper.replace(CREDENTIAL_FAMILIES, ''))
  );
}

/** Every signer type the reference has, plus pkcs11. */
export const SIGNER_SCHEMAS = {
  local: { schema: local, secretFields: ['passphrase'] },
  aws_kms: { schema: awsKms, secretFields: [] },
  azure_key_vault: {
    schema: azureKeyVault,
    secretFields: ['tenant_id', 'client_id', 'client_secret', 'federated_token_file'],
  },
  turnkey: { schema: turnkey, secretFields: ['api_private_key'] },
  cdp: { schema: cdp, secretFields: ['api_key_secret', 'wallet_secret'] },
  vault: { schema: vault, secretFields: ['role_id', 'secret_id'] },
  vault_transit: { schema: vaultTransit, secretFields: ['role_id', 'secret_id'] },
  google_cloud_kms: {
    schema: googleCloudKms,
    secretFields: ['service_account.private_key_id', 'service_account.private_key', 'service_account.client_email'],
  },
  pkcs11: { schema: pkcs11, secretFields: ['pin'] },
} as const satisfies Record<string, SignerTypeSchema>;

// The management API takes the same objects with each secret as a plain string (the reference's request shapes).
const plainSecret = { type: 'string', minLength: 1 } as const;
const optPlainSecret = optional(plainSecret, 'a string');

function withPlainSecrets(node: unknown): unknown {
  if (node === secretRef) return plainSecret;
  if (node === optSecret) return optPlainSecret;
  if (Array.isArray(node)) return node.map(withPlainSecrets);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withPlainSecrets(v)]));
}

/** The JSON Schema of a type's `config` in `POST /api/v1/signers`: the file's, each secret field a string. */
export function requestSchemaOf(type: SignerType): object {
  return withPlainSecrets(SIGNER_SCHEMAS[type].schema) as object;
}

/** Every signer type a config may name (whether or not its adapter is there yet). */
export type SignerType = keyof typeof SIGNER_SCHEMAS;
export const ALL_SIGNER_TYPES = Object.keys(SIGNER_SCHEMAS) as SignerType[];

// The config objects as loaded: defaults filled in, every secret `{ type: 'plain', value }`.
export interface LocalSignerFileConfig {
  path: string;
  passphrase: SecretRef;
}
export interface AwsKmsSignerFileConfig {
  region: string;
  key_id: string;
}
export interface AzureKeyVaultSignerFileConfig {
  auth_type?: 'client_secret' | 'managed_identity' | 'workload_identity' | null;
  tenant_id?: SecretRef | null;
  client_id?: SecretRef | null;
  client_secret?: SecretRef | null;
  federated_token_file?: SecretRef | null;
  vault_url: string;
  key_name: string;
  key_version?: string | null;
}
export interface TurnkeySignerFileConfig {
  api_public_key: string;
  api_private_key: SecretRef;
  organization_id: string;
  private_key_id: string;
  public_key: string;
}
export interface CdpSignerFileConfig {
  api_key_id: string;
  api_key_secret: SecretRef;
  wallet_secret: SecretRef;
  account_address: string;
}
export interface VaultSignerFileConfig {
  address: string;
  namespace?: string | null;
  role_id: SecretRef;
  secret_id: SecretRef;
  key_name: string;
  mount_point?: string | null;
}
export interface VaultTransitSignerFileConfig {
  key_name: string;
  address: string;
  role_id: SecretRef;
  secret_id: SecretRef;
  pubkey: string;
  mount_point?: string | null;
  namespace?: string | null;
}
export interface GoogleCloudKmsSignerFileConfig {
  service_account: {
    project_id: string;
    private_key_id: SecretRef;
    private_key: SecretRef;
    client_email: SecretRef;
    client_id: string;
    auth_uri: string;
    token_uri: string;
    auth_provider_x509_cert_url: string;
    client_x509_cert_url: string;
    universe_domain: string;
  };
  key: { location: string; key_ring_id: string; key_id: string; key_version: number };
}
export interface Pkcs11SignerFileConfig {
  module_path: string;
  token_label?: string;
  slot?: number;
  pin: SecretRef;
  key_label?: string;
  key_id?: string;
}

export interface SignerFileConfigs {
  local: LocalSignerFileConfig;
  aws_kms: AwsKmsSignerFileConfig;
  azure_key_vault: AzureKeyVaultSignerFileConfig;
  turnkey: TurnkeySignerFileConfig;
  cdp: CdpSignerFileConfig;
  vault: VaultSignerFileConfig;
  vault_transit: VaultTransitSignerFileConfig;
  google_cloud_kms: GoogleCloudKmsSignerFileConfig;
  pkcs11: Pkcs11SignerFileConfig;
}

/** Every secret field name of every type (the log redacts these wherever they appear). */
export function allSecretFieldPaths(): string[] {
  return [...new Set(Object.values(SIGNER_SCHEMAS).flatMap((t) => t.secretFields as readonly string[]))];
}

/** The value at a dot path of an object, or undefined. */
export function getPath(value: unknown, dotted: string): unknown {
  let at = value;
  for (const key of dotted.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Sets the value at a dot path whose parents exist (a secret field of an object already validated). */
export function setPath(value: object, dotted: string, field: unknown): void {
  const keys = dotted.split('.');
  const last = keys.pop()!;
  const parent = keys.length ? getPath(value, keys.join('.')) : value;
  if (parent !== null && typeof parent === 'object') (parent as Record<string, unknown>)[last] = field;
}

/** Removes the field at a dot path, if there. */
export function deletePath(value: object, dotted: string): void {
  const keys = dotted.split('.');
  const last = keys.pop()!;
  const parent = keys.length ? getPath(value, keys.join('.')) : value;
  if (parent !== null && typeof parent === 'object') delete (parent as Record<string, unknown>)[last];
}

/** Fills the schema's `default`s into a validated config object, in place (the file validator injects none). */
export function applyDefaults(schema: object, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const properties =
    (schema as { properties?: Record<string, { default?: unknown; properties?: object }> }).properties ?? {};
  const target = value as Record<string, unknown>;
  for (const [key, sub] of Object.entries(properties)) {
    if (target[key] === undefined && sub.default !== undefined) target[key] = sub.default;
    else if (sub.properties) applyDefaults(sub, target[key]);
  }
}
