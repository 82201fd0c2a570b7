// The `turnkey` signer (the reference's TurnkeySigner), through Turnkey's official client (@turnkey/http, each request
// stamped by @turnkey/api-key-stamper with the API key): the key stays in Turnkey, which answers the activity
// ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2. EVM: the 32-byte digest, HASH_FUNCTION_NO_OP, r and s (v is found by recovery
// against the address of `public_key`); Solana and Stellar: the message bytes, HASH_FUNCTION_NOT_APPLICABLE, an
// Ed25519 signature verified against `public_key` before use. TURNKEY_API_BASE_URL points the client elsewhere
// (default https://api.turnkey.com), as the client's own `baseUrl` option allows.
import { createECDH, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import { ed25519Address } from '../keys.ts';
import { baseUrl, networkCause, remoteCall, RemoteSignerError } from '../remote-call.ts';
import type { SignerSettings } from '../../config/config.ts';

export { DEFAULT_TURNKEY_API_BASE_URL } from '../../config/env.ts';
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const COMPLETED = 'ACTIVITY_STATUS_COMPLETED';

type HashFunction = 'HASH_FUNCTION_NO_OP' | 'HASH_FUNCTION_NOT_APPLICABLE';
type SignRaw = (payload: Uint8Array, hashFunction: HashFunction) => Promise<Uint8Array>;

// Turnkey's gRPC status codes (google.rpc.Code) in our words. Turnkey's own message is never quoted: it may echo the
// request (the stamp, the payload) back.
const CAUSES: Record<number, string> = {
  3: 'refused as invalid (INVALID_ARGUMENT: is private_key_id a key of the curve this network signs with?)',
  5: 'not found (NOT_FOUND: check private_key_id and organization_id)',
  7: 'refused (PERMISSION_DENIED: the API key may not use this organization or key; check organization_id and the policies)',
  8: 'throttled by the service (RESOURCE_EXHAUSTED)',
  16: 'the API key was refused (UNAUTHENTICATED: check api_public_key and api_private_key, and that the key is registered)',
};

/** What Turnkey's answer means, from its code or status only. */
function turnkeyCause(err: unknown): string {
  const e = err as { name?: string; code?: unknown; message?: string };
  if (e.name === 'TurnkeyRequestError')
    return typeof e.code === 'number' && CAUSES[e.code]
      ? CAUSES[e.code]!
      : `refused (code ${typeof e.code === 'number' ? e.code : 'unknown'})`;
  // Not JSON: the client throws "<status> <statusText>".
  const status = /^(\d{3}) /.exec(e.message ?? '');
  if (status) return status[1] === '429' ? 'HTTP 429: throttled by the service' : `HTTP ${status[1]}`;
  // The stamper failed before any request: the key pair is checked at creation, so this is unexpected.
  return 'the request could not be stamped with the API key (check api_public_key and api_private_key)';
}

/**
 * The API key's two halves must be one key: refused at creation, naming the signer, rather than as a stamp Turnkey
 * cannot verify (or, on Node 24.10+, an unnamed "Invalid JWK EC key" from the stamper).
 */
export function checkApiKey(signer: SignerConfigOf<'turnkey'>): void {
  const c = signer.config;
  const who = `signer '${signer.id}'`;
  const secret = c.api_private_key.value.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{1,64}$/.test(secret))
    throw new Error(
      `${who}: 'api_private_key' must be the Turnkey API key's P-256 private key in hex (up to 64 hex digits)`,
    );
  if (!/^(02|03)[0-9a-fA-F]{64}$/.test(c.api_public_key.trim()))
    throw new Error(
      `${who}: 'api_public_key' must be the Turnkey API key's compressed P-256 public key in hex (66 hex digits starting 02 or 03)`,
    );
  let derived: string;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(secret.padStart(64, '0'), 'hex');
    derived = ecdh.getPublicKey('hex', 'compressed');
  } catch {
    throw new Error(`${who}: 'api_private_key' is not a valid P-256 private key`);
  }
  if (derived.toLowerCase() !== c.api_public_key.trim().toLowerCase()) {
    throw new Error(
      `${who}: 'api_private_key' does not match 'api_public_key' (they are not the two halves of one Turnkey API key; give both from the same key)`,
    );
  }
}

async function rawSigner(signer: SignerConfigOf<'turnkey'>, settings: SignerSettings): Promise<SignRaw> {
  const [{ TurnkeyClient }, { ApiKeyStamper }] = await Promise.all([
    import('@turnkey/http'),
    import('@turnkey/api-key-stamper'),
  ]);
  const c = signer.config;
  const stamper = new ApiKeyStamper({
    apiPublicKey: c.api_public_key.trim(),
    apiPrivateKey: c.api_private_key.value.trim().replace(/^0x/i, ''),
  });
  const client = new TurnkeyClient(
    { baseUrl: baseUrl(signer.id, settings.turnkeyApiBaseUrl, 'TURNKEY_API_BASE_URL') },
    stamper,
  );
  const label = `signer '${signer.id}': Turnkey sign_raw_payload`;
  const timeoutMs = settings.timeoutMs;
  return async (payload, hashFunction) => {
    const body = {
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' as const,
      timestampMs: String(Date.now()),
      organizationId: c.organization_id,
      parameters: {
        signWith: c.private_key_id,
        payload: Buffer.from(payload).toString('hex'),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' as const,
        hashFunction,
      },
    };
    const answer = await remoteCall(label, timeoutMs, async () => {
      try {
        return await client.signRawPayload(body);
      } catch (err) {
        // Refused connections and the like: remoteCall tells them.
        if (networkCause(err)) throw err;
        throw new RemoteSignerError(`${label}: ${turnkeyCause(err)}`, err);
      }
    });
    const activity = answer.activity;
    // A policy needing approval leaves the activity pending: the send fails now rather than waiting for a human.
    if (activity?.status !== COMPLETED)
      throw new RemoteSignerError(`${label}: the activity is ${activity?.status ?? 'missing'}, not completed`);
    const result = activity.result?.signRawPayloadResult;
    if (!result?.r || !result?.s) throw new RemoteSignerError(`${label}: the activity holds no signature`);
    return new Uint8Array(Buffer.from(result.r.padStart(64, '0') + result.s.padStart(64, '0'), 'hex'));
  };
}

function ed25519PublicKey(signer: SignerConfigOf<'turnkey'>): { raw: Uint8Array; key: KeyObject } {
  const raw = Buffer.from(signer.config.public_key.replace(/^0x/, ''), 'hex');
  if (raw.length !== 32)
    throw new Error(
      `signer '${signer.id}': 'public_key' must be the Ed25519 public key in hex (32 bytes) for Solana and Stellar; it has ${raw.length}`,
    );
  return {
    raw: new Uint8Array(raw),
    key: createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' }),
  };
}

function evmAddress(signer: SignerConfigOf<'turnkey'>): string {
  try {
    return evmAddressFromPublicKey(Buffer.from(signer.config.public_key.replace(/^0x/, ''), 'hex'));
  } catch (err) {
    throw new Error(
      `signer '${signer.id}': 'public_key' must be the secp256k1 public key in hex for EVM: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

export const createSigner: SignerFactory = async (entry, networkType, { settings }): Promise<Signer> => {
  const signer = entry as SignerConfigOf<'turnkey'>;
  checkApiKey(signer);
  if (networkType === 'evm') {
    const address = evmAddress(signer);
    const signRaw = await rawSigner(signer, settings);
    return {
      address,
      async signEvmDigest(digest) {
        const rs = await signRaw(digest, 'HASH_FUNCTION_NO_OP');
        try {
          return evmSignatureFrom(rs, digest, address);
        } catch (err) {
          throw new RemoteSignerError(
            `signer '${signer.id}': Turnkey key '${signer.config.private_key_id}': ${(err as Error).message}`,
          );
        }
      },
    };
  }
  const publicKey = ed25519PublicKey(signer);
  const signRaw = await rawSigner(signer, settings);
  const address = await ed25519Address(publicKey.raw, networkType);
  const sign = async (message: Uint8Array) => {
    const signature = await signRaw(message, 'HASH_FUNCTION_NOT_APPLICABLE');
    if (!verify(null, message, publicKey.key, signature)) {
      throw new RemoteSignerError(
        `signer '${signer.id}': Turnkey key '${signer.config.private_key_id}' answered a signature that does not verify against 'public_key' (is it an Ed25519 key, and is 'public_key' its public key?)`,
      );
    }
    return signature;
  };
  return { address, ed25519: { address, sign } };
};
