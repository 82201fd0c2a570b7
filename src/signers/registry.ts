// Which adapter signs for each signer type. An adapter is loaded the first time a signer of its type is resolved, so a
// deployment of local keys loads no cloud client and pays no memory for one. Each src/signers/<type>/signer.ts exports
// `createSigner`; a new type is one line here and one in src/config/signer-types.ts.
import type { SignerConfig } from '../config/config.ts';
import { getPath, isSignerCredentialVariable, SIGNER_SCHEMAS } from '../config/signer-schemas.ts';
import type { SignerResolver } from '../domain/signers/ports.ts';
import type { SignerContext, SignerFactory } from './factory.ts';
import { RemoteSignerError, scrubProviderText } from './remote-call.ts';

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
    if (!load)
      throw new Error(
        `signer '${signer.id}': type '${signer.type}' is not supported (supported: ${Object.keys(ADAPTERS).join(', ')})`,
      );
    const { createSigner } = await load();
    try {
      return await createSigner(signer, networkType, context);
    } catch (err) {
      // The provider's own answer goes on for the debug log only, with every secret this signer holds taken out.
      if (err instanceof RemoteSignerError && err.detail)
        err.detail = scrubProviderText(err.detail, secretsOf(signer, context.env));
      throw err;
    }
  };
}

/** The secret values of a signer's entry (its key, each secret field) and of the signer clients' credential variables. */
function secretsOf(signer: SignerConfig, env: NodeJS.ProcessEnv): string[] {
  const values = [signer.private_key, signer.private_key_env ? env[signer.private_key_env] : undefined];
  const type = SIGNER_SCHEMAS[signer.type as keyof typeof SIGNER_SCHEMAS];
  for (const field of type?.secretFields ?? []) {
    const ref = signer.config
      ? (getPath(signer.config, field) as { type?: string; value?: string } | undefined)
      : undefined;
    if (ref?.value) values.push(ref.type === 'env' ? env[ref.value] : ref.value);
  }
  for (const [name, value] of Object.entries(env)) if (isSignerCredentialVariable(name)) values.push(value);
  return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
}
