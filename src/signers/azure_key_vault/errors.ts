// Why a call to Azure (Entra ID for the token, Key Vault for the key and the signature) failed, in words an operator
// acts on. Only an error's name, code, status and Azure's own first line are used: the clients' error objects also
// carry the request (with its bearer token or client secret) and the answer, which never reach a log or the API.

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);
const TLS_CODES = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']);

interface AzureError {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
  errorResponse?: { error?: string; errorDescription?: string };
  cause?: unknown;
}

/** Azure's message: its first line (Entra adds trace and correlation ids after it), bounded. */
const short = (message: string | undefined) => (message ?? '').split(/\r?\n|Trace ID:/)[0]!.replace(/\s+/g, ' ').trim().slice(0, 240);

/** The first code found down the cause chain (node's network and TLS codes sit under the clients' own errors). */
function codeOf(err: unknown): string | undefined {
  for (let e = err as AzureError | undefined, depth = 0; e && depth < 5; e = e.cause as AzureError | undefined, depth++) {
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || TLS_CODES.has(e.code))) return e.code;
  }
  const text = String((err as AzureError)?.message ?? '');
  return [...NETWORK_CODES, ...TLS_CODES].find((c) => text.includes(c));
}

function reachCause(code: string | undefined): string | undefined {
  if (code && TLS_CODES.has(code)) return `the server's TLS certificate is not trusted (${code}; a private CA is trusted through NODE_EXTRA_CA_CERTS)`;
  if (code) return `unreachable (${code})`;
  return undefined;
}

const IDENTITY_ERRORS = new Set(['AuthenticationError', 'AggregateAuthenticationError', 'AuthenticationRequiredError', 'CredentialUnavailableError']);

/** A token refused or unobtainable (@azure/identity's errors wrap MSAL's: "code: … Description: AADSTS…: sentence"). */
function identityCause(e: AzureError): string | undefined {
  if (!e.name || !IDENTITY_ERRORS.has(e.name)) return undefined;
  const text = `${e.errorResponse?.error ?? ''} ${e.errorResponse?.errorDescription ?? ''} ${e.message ?? ''}`;
  const aadsts = /AADSTS\d+:[^\r\n]*?(?=\s*Trace ID|\r|\n|$)/.exec(text)?.[0];
  const code = e.errorResponse?.error || /^([a-z_]+):/.exec(e.message ?? '')?.[1];
  if (aadsts) return `the credentials were refused by Microsoft Entra ID (${code ? `${code}: ` : ''}${short(aadsts)})`;
  if (code === 'endpoints_resolution_error') return 'the authority (AZURE_AUTHORITY_HOST, or login.microsoftonline.com) could not be reached or served no OpenID configuration';
  if (/not configured to acquire tokens for tenant/.test(e.message ?? '')) return 'the vault\'s authentication challenge names another tenant than tenant_id (check tenant_id and vault_url)';
  // MSAL's managed identity answer: "Authentication failed. Message : Error(s): … - Description: <the endpoint's> - Correlation ID: …".
  const managed = /ManagedIdentityCredential: Authentication failed.*?Description: (.*?)(?: - Correlation ID|$)/s.exec(e.message ?? '')?.[1];
  if (managed) return `the managed identity endpoint refused the token request (${short(managed)})`;
  if (e.name === 'CredentialUnavailableError') return `no Azure identity available (${short(e.message)})`;
  return `the credentials were refused by Microsoft Entra ID (${short(e.message)})`;
}

/** Key Vault's answer (@azure/core-rest-pipeline's RestError: statusCode and Key Vault's error code). */
function vaultCause(e: AzureError): string | undefined {
  const status = e.statusCode;
  if (status === undefined) return undefined;
  if (status === 401 || status === 403) return `the vault refused the access (HTTP ${status} ${e.code ?? ''}: ${short(e.message)})`;
  if (status === 404) return 'the key was not found (check vault_url, key_name and key_version)';
  if (status === 429) return 'throttled by Azure Key Vault (HTTP 429)';
  if (status >= 500) return `Azure Key Vault failed (HTTP ${status})`;
  return `HTTP ${status} ${e.code ?? ''}: ${short(e.message)}`;
}

export function azureCause(err: unknown): string {
  const e = (err ?? {}) as AzureError;
  const reach = reachCause(codeOf(err));
  if (reach) return reach;
  const cause = identityCause(e) ?? vaultCause(e);
  if (cause) return cause;
  if (e.name === 'AbortError') return 'Azure did not answer in time';
  return `${e.name ?? 'Error'}: ${short(e.message)}`;
}
