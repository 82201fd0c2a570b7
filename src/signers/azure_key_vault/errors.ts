// Why a call to Azure (Entra ID for the token, Key Vault for the key and the signature) failed, in words an operator
// acts on: from an error's name, code (AADSTS number, OAuth error, Key Vault code) and status only. Azure's message is
// never quoted: an endpoint may repeat the request in it (the client secret, the bearer token), and the clients'
// error objects also carry the request and the answer, which never reach a log or the API.

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);
const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface AzureError {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
  errorResponse?: { error?: string; errorDescription?: string };
  cause?: unknown;
}

/** An OAuth or Key Vault error code is an identifier; anything else is not repeated. */
const identifier = (code: unknown) =>
  typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(code) ? code : undefined;

// Entra's AADSTS codes an operator meets, in words (https://learn.microsoft.com/entra/identity-platform/reference-error-codes).
const AADSTS: Record<string, string> = {
  '7000215': 'the client secret is wrong (check client_secret: the secret value, not its id)',
  '7000222': 'the client secret has expired (make a new one)',
  '700016': 'no application with this client_id in the tenant (check client_id and tenant_id)',
  '90002': 'the tenant was not found (check tenant_id)',
  '700211': 'no federated identity matches the token (check federated_token_file and the federated credential)',
  '70011': 'the scope was refused',
};

/** The first code found down the cause chain (node's network and TLS codes sit under the clients' own errors). */
function codeOf(err: unknown): string | undefined {
  for (
    let e = err as AzureError | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as AzureError | undefined, depth++
  ) {
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || TLS_CODES.has(e.code))) return e.code;
  }
  const text = String((err as AzureError)?.message ?? '');
  return [...NETWORK_CODES, ...TLS_CODES].find((c) => text.includes(c));
}

function reachCause(code: string | undefined): string | undefined {
  if (code && TLS_CODES.has(code))
    return `the server's TLS certificate is not trusted (${code}; a private CA is trusted through NODE_EXTRA_CA_CERTS)`;
  if (code) return `unreachable (${code})`;
  return undefined;
}

const IDENTITY_ERRORS = new Set([
  'AuthenticationError',
  'AggregateAuthenticationError',
  'AuthenticationRequiredError',
  'CredentialUnavailableError',
]);

/** A token refused or unobtainable (@azure/identity's errors wrap MSAL's: "code: … Description: AADSTS…: sentence"). */
function identityCause(e: AzureError): string | undefined {
  if (!e.name || !IDENTITY_ERRORS.has(e.name)) return undefined;
  const text = `${e.errorResponse?.error ?? ''} ${e.errorResponse?.errorDescription ?? ''} ${e.message ?? ''}`;
  const aadsts = /AADSTS(\d{1,10})\b/.exec(text)?.[1];
  const code = identifier(e.errorResponse?.error) ?? identifier(/^([a-z_]+):/.exec(e.message ?? '')?.[1]);
  const which = [code, aadsts ? `AADSTS${aadsts}` : undefined].filter(Boolean).join(' ');
  if (aadsts)
    return `the credentials were refused by Microsoft Entra ID (${which}: ${AADSTS[aadsts] ?? "see the code in Entra's error reference"})`;
  if (code === 'endpoints_resolution_error')
    return 'the authority (AZURE_AUTHORITY_HOST, or login.microsoftonline.com) could not be reached or served no OpenID configuration';
  if (/not configured to acquire tokens for tenant/.test(e.message ?? ''))
    return "the vault's authentication challenge names another tenant than tenant_id (check tenant_id and vault_url)";
  if (/ManagedIdentityCredential: Authentication failed/.test(e.message ?? ''))
    return 'the managed identity endpoint refused the token request (check IDENTITY_ENDPOINT and IDENTITY_HEADER, and client_id for a user-assigned identity)';
  if (e.name === 'CredentialUnavailableError')
    return `no Azure identity available for auth_type (CredentialUnavailableError: check the identity's environment, e.g. IDENTITY_ENDPOINT or AZURE_FEDERATED_TOKEN_FILE)`;
  return `the credentials were refused by Microsoft Entra ID (${which || e.name})`;
}

/** Key Vault's answer (@azure/core-rest-pipeline's RestError: statusCode and Key Vault's error code). */
function vaultCause(e: AzureError): string | undefined {
  const status = e.statusCode;
  if (status === undefined) return undefined;
  const code = identifier(e.code);
  if (status === 401 || status === 403)
    return `the vault refused the access (HTTP ${status}${code ? ` ${code}` : ''}: check the identity's access policy or role on the vault)`;
  if (status === 404) return 'the key was not found (check vault_url, key_name and key_version)';
  if (status === 429) return 'throttled by Azure Key Vault (HTTP 429)';
  if (status >= 500) return `Azure Key Vault failed (HTTP ${status})`;
  return `Azure Key Vault refused the request (HTTP ${status}${code ? ` ${code}` : ''})`;
}

export function azureCause(err: unknown): string {
  const e = (err ?? {}) as AzureError;
  const reach = reachCause(codeOf(err));
  if (reach) return reach;
  const cause = identityCause(e) ?? vaultCause(e);
  if (cause) return cause;
  if (e.name === 'AbortError') return 'Azure did not answer in time';
  return `Azure failed (${identifier(e.name) ?? 'an unrecognised error'})`;
}
