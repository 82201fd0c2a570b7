// The `turnkey` signer (the reference's TurnkeySigner), through Turnkey's official client (@turnkey/http, each request
// stamped by @turnkey/api-key-stamper with the API key): the key stays in Turnkey, which answers the activity
// ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2. EVM: the 32-byte digest, HASH_FUNCTION_NO_OP, r and s (v is found by recovery
// against the address of `public_key`); Solana and Stellar: the message bytes, HASH_FUNCTION_NOT_APPLICABLE, an
// Ed25519 signature verified against `public_key` before use. TURNKEY_API_BASE_URL points the client elsewhere
// (default https://api.turnkey.com), as the client's own `baseUrl` option allows.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import { ed25519Address } from '../keys.ts';
import { remoteCall, RemoteSignerError, signerTimeoutMs } from '../remote-call.ts';

export const DEFAULT_TURNKEY_API_BASE_URL = 'https://api.turnkey.com';
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const COMPLETED = 'ACTIVITY_STATUS_COMPLETED';

type HashFunction = 'HASH_FUNCTION_NO_OP' | 'HASH_FUNCTION_NOT_APPLICABLE';
type SignRaw = (payload: Uint8Array, hashFunction: HashFunction) => Promise<Uint8Array>;

/** What Turnkey said, bounded; its error texts name the cause (e.g. the stamp or the key) and echo no secret. */
function turnkeyCause(err: unknown): string {
  const e = err as { name?: string; code?: unknown; message?: string };
  // gRPC code 8 (RESOURCE_EXHAUSTED): Turnkey's rate limit.
  if (e.name === 'TurnkeyRequestError' && e.code === 8) return `throttled by the service (${String(e.message).slice(0, 300)})`;
  if (e.name === 'TurnkeyRequestError') return `refused (${String(e.message).slice(0, 300)})`;
  // Not JSON: the client throws "<status> <statusText>".
  const status = /^(\d{3}) /.exec(e.message ?? '');
  if (status) return status[1] === '429' ? 'HTTP 429: throttled by the service' : `HTTP ${status[1]}`;
  throw err;
}

async function rawSigner(signer: SignerConfigOf<'turnkey'>, env: NodeJS.ProcessEnv): Promise<SignRaw> {
  const [{ TurnkeyClient }, { ApiKeyStamper }] = await Promise.all([import('@turnkey/http'), import('@turnkey/api-key-stamper')]);
  const c = signer.config;
  const stamper = new ApiKeyStamper({ apiPublicKey: c.api_public_key, apiPrivateKey: c.api_private_key.value });
  const client = new TurnkeyClient({ baseUrl: (env.TURNKEY_API_BASE_URL || DEFAULT_TURNKEY_API_BASE_URL).replace(/\/+$/, '') }, stamper);
  const label = `signer '${signer.id}': Turnkey sign_raw_payload`;
  const timeoutMs = signerTimeoutMs(env);
  return async (payload, hashFunction) => {
    const body = {
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' as const,
      timestampMs: String(Date.now()),
      organizationId: c.organization_id,
      parameters: { signWith: c.private_key_id, payload: Buffer.from(payload).toString('hex'), encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' as const, hashFunction },
    };
    const answer = await remoteCall(label, timeoutMs, async () => {
      try {
        return await client.signRawPayload(body);
      } catch (err) {
        throw new RemoteSignerError(`${label}: ${turnkeyCause(err)}`);
      }
    });
    const activity = answer.activity;
    // A policy needing approval leaves the activity pending: the send fails now rather than waiting for a human.
    if (activity?.status !== COMPLETED) throw new RemoteSignerError(`${label}: the activity is ${activity?.status ?? 'missing'}, not completed`);
    const result = activity.result?.signRawPayloadResult;
    if (!result?.r || !result?.s) throw new RemoteSignerError(`${label}: the activity holds no signature`);
    return new Uint8Array(Buffer.from(result.r.padStart(64, '0') + result.s.padStart(64, '0'), 'hex'));
  };
}

function ed25519PublicKey(signer: SignerConfigOf<'turnkey'>): { raw: Uint8Array; key: KeyObject } {
  const raw = Buffer.from(signer.config.public_key.replace(/^0x/, ''), 'hex');
  if (raw.length !== 32) throw new Error(`signer '${signer.id}': 'public_key' must be the Ed25519 public key in hex (32 bytes) for Solana and Stellar; it has ${raw.length}`);
  return { raw: new Uint8Array(raw), key: createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' }) };
}

function evmAddress(signer: SignerConfigOf<'turnkey'>): string {
  try {
    return evmAddressFromPublicKey(Buffer.from(signer.config.public_key.replace(/^0x/, ''), 'hex'));
  } catch (err) {
    throw new Error(`signer '${signer.id}': 'public_key' must be the secp256k1 public key in hex for EVM: ${(err as Error).message}`, { cause: err });
  }
}

export const createSigner: SignerFactory = async (entry, networkType, { env }): Promise<Signer> => {
  const signer = entry as SignerConfigOf<'turnkey'>;
  if (networkType === 'evm') {
    const address = evmAddress(signer);
    const signRaw = await rawSigner(signer, env);
    return {
      address,
      async signEvmDigest(digest) {
        const rs = await signRaw(digest, 'HASH_FUNCTION_NO_OP');
        try {
          return evmSignatureFrom(rs, digest, address);
        } catch (err) {
          throw new RemoteSignerError(`signer '${signer.id}': Turnkey key '${signer.config.private_key_id}': ${(err as Error).message}`);
        }
      },
    };
  }
  const publicKey = ed25519PublicKey(signer);
  const signRaw = await rawSigner(signer, env);
  const address = await ed25519Address(publicKey.raw, networkType);
  const sign = async (message: Uint8Array) => {
    const signature = await signRaw(message, 'HASH_FUNCTION_NOT_APPLICABLE');
    if (!verify(null, message, publicKey.key, signature)) {
      throw new RemoteSignerError(`signer '${signer.id}': Turnkey key '${signer.config.private_key_id}' answered a signature that does not verify against 'public_key' (is it an Ed25519 key, and is 'public_key' its public key?)`);
    }
    return signature;
  };
  return { address, ed25519: { address, sign } };
};
