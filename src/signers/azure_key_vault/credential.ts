// The Azure identity an azure_key_vault signer authenticates with, by auth_type, through @azure/identity; and the
// client options that let an operator point the signer elsewhere (a sovereign or private cloud, a simulator).
import type { TokenCredential } from '@azure/identity';
import { checkRegularFile } from '../../config/read-file.ts';
import type { SignerSettings } from '../../config/config.ts';

type Identity = typeof import('@azure/identity');

export interface AzureKeyVaultConfig {
  auth_type?: 'client_secret' | 'managed_identity' | 'workload_identity' | null;
  tenant_id?: { value: string };
  client_id?: { value: string };
  client_secret?: { value: string };
  federated_token_file?: { value: string };
  vault_url: string;
  key_name: string;
  key_version?: string | null;
}

// Entra hosts MSAL knows without asking; any other AZURE_AUTHORITY_HOST is used as it is, not checked against
// login.microsoftonline.com's instance discovery (which an isolated or private deployment cannot reach).
const KNOWN_AUTHORITIES = [
  'login.microsoftonline.com',
  'login.chinacloudapi.cn',
  'login.microsoftonline.us',
  'login.microsoftonline.de',
];
// Key Vault domains: a vault_url under one of them keeps the SDK's check that the 401 challenge names the vault's own
// resource; a vault_url elsewhere (a private endpoint name, a simulator) is trusted as configured.
const VAULT_DOMAINS = [
  '.vault.azure.net',
  '.vault.azure.cn',
  '.vault.usgovcloudapi.net',
  '.vault.microsoftazure.de',
  '.managedhsm.azure.net',
  '.managedhsm.azure.cn',
  '.managedhsm.usgovcloudapi.net',
];

export function isAzureVaultHost(vaultUrl: string): boolean {
  const host = new URL(vaultUrl).hostname.toLowerCase();
  return VAULT_DOMAINS.some((d) => host.endsWith(d));
}

function authorityOptions(settings: SignerSettings) {
  const authorityHost = settings.azureAuthorityHost;
  if (!authorityHost) return {};
  let host: string;
  try {
    host = new URL(authorityHost).hostname.toLowerCase();
  } catch {
    throw new Error(`AZURE_AUTHORITY_HOST is not a URL`);
  }
  return { authorityHost, disableInstanceDiscovery: !KNOWN_AUTHORITIES.includes(host) };
}

/** The credential of `auth_type` (client_secret when absent, as the reference). Throws a sentence naming what lacks. */
export function credentialFor(
  config: AzureKeyVaultConfig,
  identity: Identity,
  settings: SignerSettings,
): TokenCredential {
  const authType = config.auth_type ?? 'client_secret';
  const tenantId = config.tenant_id?.value;
  const clientId = config.client_id?.value;
  const options = authorityOptions(settings);
  if (authType === 'managed_identity')
    return clientId
      ? new identity.ManagedIdentityCredential({ clientId, ...options })
      : new identity.ManagedIdentityCredential(options);
  if (!tenantId || !clientId) throw new Error(`auth_type ${authType} needs tenant_id and client_id`);
  if (authType === 'workload_identity') {
    const tokenFilePath = config.federated_token_file?.value || settings.azureFederatedTokenFile;
    if (!tokenFilePath)
      throw new Error('auth_type workload_identity needs federated_token_file or AZURE_FEDERATED_TOKEN_FILE');
    // The key file is checked now (a regular, readable file), not as the identity library's failure at the first call.
    checkRegularFile(tokenFilePath, 64 * 1024, 'the federated token file');
    return new identity.WorkloadIdentityCredential({ tenantId, clientId, tokenFilePath, ...options });
  }
  const secret = config.client_secret?.value;
  if (!secret) throw new Error('auth_type client_secret needs client_secret');
  return new identity.ClientSecretCredential(tenantId, clientId, secret, options);
}
