// The aws_kms signer: a key held by AWS KMS, used through the official client (@aws-sdk/client-kms, loaded only when a
// signer of this type is configured). Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID/…, a profile,
// web identity, an instance role); the endpoint from the SDK's own AWS_ENDPOINT_URL_KMS when set (private endpoints,
// tests). EVM: an ECC_SECG_P256K1 key signs digests (DER, made r‖s‖v by evmSignatureFrom); Solana and Stellar: an
// ECC_NIST_EDWARDS25519 key signs the raw message (ED25519_SHA_512), as the reference's AWS KMS signers do.
import { createPublicKey, verify } from 'node:crypto';
import type { SignerConfig } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { NetworkType } from '../../domain/types.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Address } from '../keys.ts';
import { remoteCall, RemoteSignerError } from '../remote-call.ts';
import { awsKmsCause } from './errors.ts';

interface AwsKmsConfig {
  region: string;
  key_id: string;
}

// SPKI DER header of an Ed25519 public key (RFC 8410): the 32-byte key follows.
const ED25519_SPKI_PREFIX = '302a300506032b6570032100';

/** What each network type needs of the key. */
const NEEDS: Record<NetworkType, string> = {
  evm: 'ECC_SECG_P256K1',
  solana: 'ECC_NIST_EDWARDS25519',
  stellar: 'ECC_NIST_EDWARDS25519',
};

type Sdk = typeof import('@aws-sdk/client-kms');

/** One KMS operation within the deadline; any failure becomes a RemoteSignerError naming the signer and the cause. */
function caller(id: string, keyId: string, timeoutMs: number) {
  return async <T>(operation: string, send: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> => {
    const label = `signer '${id}': AWS KMS ${operation} (key '${keyId}')`;
    try {
      return await remoteCall(label, timeoutMs, (signal) => send({ abortSignal: signal }));
    } catch (err) {
      if (err instanceof RemoteSignerError) throw err;
      throw new RemoteSignerError(`${label}: ${awsKmsCause(err)}`, err);
    }
  };
}

function ed25519PublicKey(id: string, spki: Uint8Array): Uint8Array {
  const hex = Buffer.from(spki).toString('hex');
  if (hex.length !== 88 || !hex.startsWith(ED25519_SPKI_PREFIX))
    throw new RemoteSignerError(`signer '${id}': AWS KMS answered a public key that is not Ed25519`);
  return spki.subarray(12);
}

async function build(signer: SignerConfig, networkType: NetworkType, sdk: Sdk, timeoutMs: number): Promise<Signer> {
  const { region, key_id: keyId } = (signer as unknown as { config: AwsKmsConfig }).config;
  // One attempt more than none: the SDK retries throttling and dropped connections itself, all within the deadline.
  const client = new sdk.KMSClient({ region, maxAttempts: 3 });
  const call = caller(signer.id, keyId, timeoutMs);
  const info = await call('GetPublicKey', (o) => client.send(new sdk.GetPublicKeyCommand({ KeyId: keyId }), o));
  if (info.KeyUsage !== 'SIGN_VERIFY' || info.KeySpec !== NEEDS[networkType] || !info.PublicKey) {
    throw new RemoteSignerError(
      `signer '${signer.id}': AWS KMS key '${keyId}' is ${info.KeySpec ?? 'of an unknown spec'} for ${info.KeyUsage ?? 'an unknown usage'}; a ${networkType} signer needs an ${NEEDS[networkType]} key for SIGN_VERIFY`,
    );
  }
  if (networkType === 'evm') {
    const address = evmAddressFromPublicKey(info.PublicKey);
    return {
      address,
      async signEvmDigest(digest) {
        const command = new sdk.SignCommand({
          KeyId: keyId,
          Message: digest,
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        });
        const { Signature } = await call('Sign', (o) => client.send(command, o));
        if (!Signature) throw new RemoteSignerError(`signer '${signer.id}': AWS KMS Sign answered no signature`);
        try {
          return evmSignatureFrom(Signature, digest, address);
        } catch (err) {
          throw new RemoteSignerError(`signer '${signer.id}': ${(err as Error).message}`);
        }
      },
    };
  }
  const address = await ed25519Address(ed25519PublicKey(signer.id, info.PublicKey), networkType);
  const publicKey = createPublicKey({ key: Buffer.from(info.PublicKey), format: 'der', type: 'spki' });
  const sign = async (message: Uint8Array) => {
    const command = new sdk.SignCommand({
      KeyId: keyId,
      Message: message,
      MessageType: 'RAW',
      SigningAlgorithm: 'ED25519_SHA_512',
    });
    const { Signature } = await call('Sign', (o) => client.send(command, o));
    // Checked here as an EVM signature is recovered: a signature by another key is refused, never sent.
    if (Signature?.length !== 64 || !verify(null, message, publicKey, Signature))
      throw new RemoteSignerError(
        `signer '${signer.id}': AWS KMS answered a signature that does not verify with the key's public key: refused`,
      );
    return Signature;
  };
  return { address, ed25519: { address, sign } };
}

export const createSigner: SignerFactory = async (signer, networkType, { settings }) =>
  build(signer, networkType, await import('@aws-sdk/client-kms'), settings.timeoutMs);
