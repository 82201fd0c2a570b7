// The signer types a config file may name today: those whose adapter exists (src/signers/registry.ts). Every type's
// config schema is in signer-schemas.ts already; a type's adapter adds its name here and its line in the registry.
import type { SignerType } from './signer-schemas.ts';

export type { SignerType } from './signer-schemas.ts';

export const SUPPORTED_SIGNER_TYPES: readonly SignerType[] = [
  'local',
  'aws_kms',
  'google_cloud_kms',
  'azure_key_vault',
  'pkcs11',
  'vault',
  'vault_transit',
  'turnkey',
  'cdp',
];

/**
 * Refuses, before the schema sees them, signers of a type we do not have (yet): one sentence naming the signer, its
 * type and the types we support, rather than a schema error about a constant.
 */
export function checkSignerTypes(file: unknown): void {
  const signers = (file as { signers?: unknown } | null)?.signers;
  if (!Array.isArray(signers)) return;
  for (const s of signers) {
    if (s === null || typeof s !== 'object') continue;
    const { id, type } = s as { id?: unknown; type?: unknown };
    if (typeof type !== 'string' || (SUPPORTED_SIGNER_TYPES as readonly string[]).includes(type)) continue;
    const name = typeof id === 'string' ? id : '?';
    throw new Error(
      `signer '${name}': type '${type}' is not supported (supported: ${SUPPORTED_SIGNER_TYPES.join(', ')})`,
    );
  }
}
