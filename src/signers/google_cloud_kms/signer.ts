// The google_cloud_kms signer: a key version held by Google Cloud KMS, used through Google's official client
// (@google-cloud/kms over its REST transport, loaded only when a signer of this type is configured), authenticated as
// the configured service account (the client signs a JWT with the account's key). GOOGLE_CLOUD_KMS_ENDPOINT
// (`https://host[:port]`, or http:// for a local endpoint) points it at another endpoint; a universe_domain written
// as a URL does the same, as in the reference. EVM: an EC_SIGN_SECP256K1_SHA256 key signs the 32-byte digest (DER,
// made r‖s‖v by evmSignatureFrom); Solana and Stellar: an EC_SIGN_ED25519 key signs the message itself.
import { createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type { KeyManagementServiceClient } from '@google-cloud/kms';
import type * as Gax from 'google-gax';
import type { SignerConfig, SignerSettings } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { NetworkType } from '../../domain/types.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Address } from '../keys.ts';
import { remoteCall, RemoteSignerError } from '../remote-call.ts';
import { googleKmsCause } from './errors.ts';

interface Secret {
  value: string;
}
interface GoogleCloudKmsConfig {
  service_account: {
    project_id: string;
    private_key_id: Secret;
    private_key: Secret;
    client_email: Secret;
    client_id: string;
    token_uri?: string;
    universe_domain?: string;
  };
  key: { location?: string; key_ring_id: string; key_id: string; key_version?: number };
}

const NEEDS: Record<NetworkType, string> = {
  evm: 'EC_SIGN_SECP256K1_SHA256',
  solana: 'EC_SIGN_ED25519',
  stellar: 'EC_SIGN_ED25519',
};
const DEFAULT_UNIVERSE = 'googleapis.com';
const CLOUD_KMS_SCOPE = 'https://www.googleapis.com/auth/cloudkms';
// The client retries UNAVAILABLE and DEADLINE_EXCEEDED itself; twice at most, all within the deadline, so an
// unreachable KMS is told as such rather than as a timeout.
const MAX_RETRIES = 2;

/** The client's endpoint options for an `http(s)://host[:port]` URL (the REST transport takes protocol and port). */
function endpointOptions(id: string, url: string): { apiEndpoint: string; port: number; protocol: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RemoteSignerError(`signer '${id}': the Google Cloud KMS endpoint '${url}' is not a URL`);
  }
  const protocol = parsed.protocol.replace(':', '');
  if (protocol !== 'https' && protocol !== 'http')
    throw new RemoteSignerError(`signer '${id}': the Google Cloud KMS endpoint must be http(s)://host[:port]`);
  return { apiEndpoint: parsed.hostname, port: Number(parsed.port) || (protocol === 'https' ? 443 : 80), protocol };
}

/**
 * The service account's key, read as the client will read it: a private key in PEM (a Google service account key is
 * RSA). Refused at creation, naming the signer and the field, rather than as the client's retried signing failure.
 */
function accountKey(id: string, account: GoogleCloudKmsConfig['service_account']): string {
  // An operator's .env may keep the PEM on one line with literal \n, as the service-account JSON writes it.
  const pem = account.private_key.value.includes('\n')
    ? account.private_key.value
    : account.private_key.value.replace(/\\n/g, '\n');
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw new Error(
      `signer '${id}': 'service_account.private_key' is not a private key in PEM (copy private_key from the service account's key file, -----BEGIN PRIVATE KEY----- included)`,
    );
  }
  if (type !== 'rsa')
    throw new Error(
      `signer '${id}': 'service_account.private_key' is an ${type} key; a Google service account key is RSA (copy private_key from the account's key file)`,
    );
  if (!/^[^@\s]+@[^@\s]+$/.test(account.client_email.value.trim()))
    throw new Error(
      `signer '${id}': 'service_account.client_email' must be the service account's email (…@….iam.gserviceaccount.com)`,
    );
  return pem;
}

function newClient(
  signer: SignerConfig,
  config: GoogleCloudKmsConfig,
  sdk: typeof import('@google-cloud/kms'),
  settings: SignerSettings,
): KeyManagementServiceClient {
  const account = config.service_account;
  const universe = account.universe_domain ?? DEFAULT_UNIVERSE;
  const universeUrl = /^https?:\/\//.test(universe) ? universe : undefined;
  const endpoint = settings.googleCloudKmsEndpoint || universeUrl;
  const bareUniverse = universeUrl || universe === DEFAULT_UNIVERSE ? undefined : universe;
  const privateKey = accountKey(signer.id, account);
  // The account's JWT client, built as Google asks (its `credentials` option is deprecated), from the auth library
  // of the client's own runtime (google-gax, a dependency of @google-cloud/kms): the client then makes it sign
  // self-signed JWTs, as its libraries do for a service account.
  const gax = createRequire(import.meta.resolve('@google-cloud/kms'))('google-gax') as typeof Gax;
  const jwt = new gax.googleAuthLibrary.JWT({
    email: account.client_email.value,
    key: privateKey,
    keyId: account.private_key_id.value,
    scopes: [CLOUD_KMS_SCOPE],
    ...(bareUniverse ? { universeDomain: bareUniverse } : {}),
  });
  return new sdk.KeyManagementServiceClient({
    fallback: true,
    projectId: account.project_id,
    auth: new gax.GoogleAuth({ authClient: jwt, projectId: account.project_id }),
    ...(bareUniverse ? { universeDomain: bareUniverse } : {}),
    ...(endpoint ? endpointOptions(signer.id, endpoint) : {}),
  });
}

function caller(id: string, name: string, timeoutMs: number) {
  return async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const label = `signer '${id}': Google Cloud KMS ${operation} (${name})`;
    try {
      return await remoteCall(label, timeoutMs, () => call());
    } catch (err) {
      if (err instanceof RemoteSignerError) throw err;
      throw new RemoteSignerError(`${label}: ${googleKmsCause(err)}`, err);
    }
  };
}

function evmSigner(id: string, spki: Buffer, sign: (body: object) => Promise<Uint8Array>): Signer {
  const address = evmAddressFromPublicKey(spki);
  return {
    address,
    async signEvmDigest(digest) {
      const der = await sign({ digest: { sha256: digest } });
      try {
        return evmSignatureFrom(der, digest, address);
      } catch (err) {
        throw new RemoteSignerError(`signer '${id}': ${(err as Error).message}`);
      }
    },
  };
}

async function ed25519Signer(
  id: string,
  publicKey: KeyObject,
  spki: Buffer,
  networkType: 'solana' | 'stellar',
  sign: (body: object) => Promise<Uint8Array>,
): Promise<Signer> {
  const address = await ed25519Address(spki.subarray(spki.length - 32), networkType);
  const signMessage = async (message: Uint8Array) => {
    const signature = await sign({ data: message });
    // A signature by another key is refused here, never sent.
    if (signature.length !== 64 || !verify(null, message, publicKey, signature))
      throw new RemoteSignerError(
        `signer '${id}': Google Cloud KMS answered a signature that does not verify with the key's public key: refused`,
      );
    return signature;
  };
  return { address, ed25519: { address, sign: signMessage } };
}

async function build(
  signer: SignerConfig,
  networkType: NetworkType,
  sdk: typeof import('@google-cloud/kms'),
  settings: SignerSettings,
): Promise<Signer> {
  const config = (signer as unknown as { config: GoogleCloudKmsConfig }).config;
  const { key } = config;
  const client = newClient(signer, config, sdk, settings);
  const name = client.cryptoKeyVersionPath(
    config.service_account.project_id,
    key.location ?? 'global',
    key.key_ring_id,
    key.key_id,
    String(key.key_version ?? 1),
  );
  const timeoutMs = settings.timeoutMs;
  const call = caller(signer.id, name, timeoutMs);
  const [publicKey] = await call('getPublicKey', () =>
    client.getPublicKey({ name }, { timeout: timeoutMs, maxRetries: MAX_RETRIES }),
  );
  const algorithm = String(publicKey.algorithm ?? 'unknown');
  if (algorithm !== NEEDS[networkType] || !publicKey.pem) {
    throw new RemoteSignerError(
      `signer '${signer.id}': Google Cloud KMS key ${name} is ${algorithm}; a ${networkType} signer needs an ${NEEDS[networkType]} key`,
    );
  }
  const keyObject = createPublicKey(publicKey.pem);
  const spki = keyObject.export({ format: 'der', type: 'spki' });
  const sign = async (body: object) => {
    const [answer] = await call('asymmetricSign', () =>
      client.asymmetricSign({ name, ...body }, { timeout: timeoutMs, maxRetries: MAX_RETRIES }),
    );
    if (!answer.signature || typeof answer.signature === 'string')
      throw new RemoteSignerError(`signer '${signer.id}': Google Cloud KMS asymmetricSign answered no signature`);
    return new Uint8Array(answer.signature);
  };
  return networkType === 'evm'
    ? evmSigner(signer.id, spki, sign)
    : ed25519Signer(signer.id, keyObject, spki, networkType, sign);
}

export const createSigner: SignerFactory = async (signer, networkType, { settings }) =>
  build(signer, networkType, await import('@google-cloud/kms'), settings);
