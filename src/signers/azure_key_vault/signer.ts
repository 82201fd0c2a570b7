// The azure_key_vault signer: a secp256k1 (P-256K) key held by Azure Key Vault, used through the official clients
// (@azure/keyvault-keys and @azure/identity, loaded only when a signer of this type is configured). EVM only, as the
// reference: the key is read once (KeyClient.getKey, pinned to the version it names), the address made from its JWK,
// and each digest signed ES256K (CryptographyClient.sign); Key Vault answers raw r ‖ s, made r ‖ s ‖ v with s low by
// evmSignatureFrom against the key's address, so a signature by another key is refused and never broadcast.
import type { CryptographyClient, KeyVaultKey } from '@azure/keyvault-keys';
import type { SignerConfig, SignerSettings } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { NetworkType } from '../../domain/types.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import type { SignerFactory } from '../factory.ts';
import { remoteCall, RemoteSignerError } from '../remote-call.ts';
import { credentialFor, isAzureVaultHost, type AzureKeyVaultConfig } from './credential.ts';
import { azureCause } from './errors.ts';

type Keys = typeof import('@azure/keyvault-keys');
type Identity = typeof import('@azure/identity');

/** One Azure operation within the deadline; any failure becomes a RemoteSignerError naming the signer and the cause. */
function caller(id: string, keyName: string, timeoutMs: number) {
  return async <T>(operation: string, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> => {
    const label = `signer '${id}': Azure Key Vault ${operation} (key '${keyName}')`;
    try {
      return await remoteCall(label, timeoutMs, run);
    } catch (err) {
      if (err instanceof RemoteSignerError) throw err;
      throw new RemoteSignerError(`${label}: ${azureCause(err)}`, err);
    }
  };
}

/** The uncompressed secp256k1 point of a P-256K JWK, or a refusal naming what the key is. */
function secp256k1Point(id: string, key: KeyVaultKey): Uint8Array {
  const jwk = key.key;
  const kind = `${key.keyType ?? jwk?.kty ?? 'unknown type'} ${jwk?.crv ?? ''}`.trim();
  if (!jwk || !String(jwk.kty).startsWith('EC') || jwk.crv !== 'P-256K' || !jwk.x || !jwk.y) {
    throw new RemoteSignerError(
      `signer '${id}': Azure Key Vault key '${key.name}' is ${kind}; an evm signer needs an EC key on curve P-256K (secp256k1)`,
    );
  }
  if (key.keyOperations && !key.keyOperations.includes('sign'))
    throw new RemoteSignerError(
      `signer '${id}': Azure Key Vault key '${key.name}' does not permit sign (key_ops: ${key.keyOperations.join(', ')})`,
    );
  const point = new Uint8Array(65);
  point[0] = 4;
  point.set(jwk.x, 33 - jwk.x.length);
  point.set(jwk.y, 65 - jwk.y.length);
  return point;
}

async function build(
  signer: SignerConfig,
  networkType: NetworkType,
  keys: Keys,
  identity: Identity,
  settings: SignerSettings,
): Promise<Signer> {
  const config = (signer as unknown as { config: AzureKeyVaultConfig }).config;
  if (networkType !== 'evm')
    throw new RemoteSignerError(
      `signer '${signer.id}': azure_key_vault signs for EVM networks only (a ${networkType} relayer names it)`,
    );
  let credential;
  try {
    credential = credentialFor(config, identity, settings);
  } catch (err) {
    throw new RemoteSignerError(`signer '${signer.id}': ${(err as Error).message}`);
  }
  // Retries of a throttled or dropped call by the client itself, all within the deadline.
  const options = {
    retryOptions: { maxRetries: 2 },
    disableChallengeResourceVerification: !isAzureVaultHost(config.vault_url),
  };
  const call = caller(signer.id, config.key_name, settings.timeoutMs);
  const keyClient = new keys.KeyClient(config.vault_url, credential, options);
  const key = await call('get key', (abortSignal) =>
    keyClient.getKey(config.key_name, { version: config.key_version ?? undefined, abortSignal }),
  );
  const address = evmAddressFromPublicKey(secp256k1Point(signer.id, key));
  const crypto: CryptographyClient = new keys.CryptographyClient(key, credential, options);
  return {
    address,
    async signEvmDigest(digest) {
      const { result } = await call('sign', (abortSignal) => crypto.sign('ES256K', digest, { abortSignal }));
      try {
        return evmSignatureFrom(result, digest, address);
      } catch (err) {
        throw new RemoteSignerError(`signer '${signer.id}': ${(err as Error).message}`);
      }
    },
  };
}

export const createSigner: SignerFactory = async (signer, networkType, { settings }) => {
  const [keys, identity] = await Promise.all([import('@azure/keyvault-keys'), import('@azure/identity')]);
  return build(signer, networkType, keys, identity, settings);
};
