// Which adapter signs for each signer type. An adapter is loaded the first time a signer of its type is resolved, so a
// deployment of local keys loads no cloud client and pays no memory for one. Each src/signers/<type>/signer.ts exports
// `createSigner`; a new type is one line here and one in src/config/signer-types.ts.
import type { SignerResolver } from '../domain/signers/ports.ts';
import type { SignerContext, SignerFactory } from './factory.ts';

const ADAPTERS: Record<string, () => Promise<{ createSigner: SignerFactory }>> = {
  local: () => import('./local/signer.ts'),
  aws_kms: () => import('./aws_kms/signer.ts'),
  google_cloud_kms: () => import('./google_cloud_kms/signer.ts'),
  azure_key_vault: () => import('./azure_key_vault/signer.ts'),
  pkcs11: () => import('./pkcs11/signer.ts'),
  vault: () => import('./vault/signer.ts'),
  vault_transit: () => import('./vault_transit/signer.ts'),
  turnkey: () => import('./turnkey/signer.ts'),
  cdp: () => import('./cdp/signer.ts'),
};

export function createSignerResolver(context: SignerContext): SignerResolver {
  return async (signer, networkType) => {
    const load = ADAPTERS[signer.type];
    if (!load) throw new Error(`signer '${signer.id}': type '${signer.type}' is not supported (supported: ${Object.keys(ADAPTERS).join(', ')})`);
    const { createSigner } = await load();
    return createSigner(signer, networkType, context);
  };
}
