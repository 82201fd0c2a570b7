// The `cdp` signer (the reference's CdpSigner): a Coinbase Developer Platform server account signs. Requests carry the
// authentication Coinbase's official SDK makes (@coinbase/cdp-sdk/auth getAuthHeaders: the API key's bearer JWT,
// Ed25519 or ES256, bound to the method, host and path, and the X-Wallet-Auth JWT signed with the wallet secret, bound
// to the body's hash). The SDK's CdpClient is not used: it keeps one process-wide HTTP client (configure() replaces
// it), so two cdp signers with different API keys would sign with each other's, and it reports errors to Coinbase's
// analytics endpoint. EVM: POST /v2/evm/accounts/{address}/sign (a 32-byte hash; v recovered against the address);
// Solana: POST /v2/solana/accounts/{address}/sign/transaction, the signature verified against the address.
// CDP_API_BASE_URL points it elsewhere (default https://api.cdp.coinbase.com/platform, the SDK's basePath).
import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { ed25519Key } from '../keys.ts';
import { getAddress, isAddress } from 'viem';
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { evmSignatureFrom } from '../evm-signature.ts';
import { baseUrl, bodyText, remoteCall, RemoteSignerError, statusCause } from '../remote-call.ts';
import type { SignerSettings } from '../../config/config.ts';
import { signatureAt, requiredSigners, unsignedWire } from './solana-wire.ts';

export { DEFAULT_CDP_API_BASE_URL } from '../../config/env.ts';
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

type Post = (what: string, path: string, body: Record<string, string>) => Promise<Record<string, unknown>>;

/**
 * The API key secret (a base64 Ed25519 key: its 32-byte seed then its public key; or an EC P-256 key in PEM) and the
 * wallet secret (a base64 DER PKCS#8 EC P-256 key) are checked at creation, naming the signer and the field, rather
 * than failing each request with the SDK's words (and, for two halves of different Ed25519 keys, a Node-specific JWK
 * error).
 */
export function checkCdpSecrets(signer: SignerConfigOf<'cdp'>): void {
  const who = `signer '${signer.id}'`;
  const secret = signer.config.api_key_secret.value.trim();
  if (secret.includes('-----BEGIN')) {
    if (ecCurve(secret) !== 'prime256v1')
      throw new Error(
        `${who}: 'api_key_secret' must be the CDP API key's secret: an EC P-256 private key in PEM, or its base64 Ed25519 key`,
      );
  } else {
    const raw = /^[A-Za-z0-9+/]+={0,2}$/.test(secret) ? Buffer.from(secret, 'base64') : Buffer.alloc(0);
    if (raw.length !== 64)
      throw new Error(
        `${who}: 'api_key_secret' must be the CDP API key's secret: a base64 Ed25519 key (64 bytes) or an EC P-256 private key in PEM`,
      );
    if (!Buffer.from(ed25519Key(raw.subarray(0, 32)).publicKey).equals(raw.subarray(32))) {
      throw new Error(
        `${who}: 'api_key_secret' holds an Ed25519 seed and a public key that do not match (its two halves are not one key; copy the secret again from the CDP portal)`,
      );
    }
  }
  const wallet = signer.config.wallet_secret.value.trim();
  if (ecCurve(Buffer.from(wallet, 'base64'), 'der') !== 'prime256v1')
    throw new Error(
      `${who}: 'wallet_secret' must be the CDP wallet secret: an EC P-256 private key, base64 DER (PKCS#8)`,
    );
}

/** The named curve of an EC private key, or undefined when it is not one. */
function ecCurve(key: string | Buffer, format: 'pem' | 'der' = 'pem'): string | undefined {
  try {
    const k =
      format === 'pem'
        ? createPrivateKey(key as string)
        : createPrivateKey({ key: key as Buffer, format: 'der', type: 'pkcs8' });
    return k.asymmetricKeyType === 'ec' ? k.asymmetricKeyDetails?.namedCurve : undefined;
  } catch {
    return undefined;
  }
}

/** CDP's error answer: its status and its errorType (a code such as `unauthorized`); never its message, which may echo the request. */
async function failure(label: string, res: Response): Promise<RemoteSignerError> {
  const text = await bodyText(res);
  let type = '';
  try {
    const body = JSON.parse(text) as { errorType?: unknown };
    if (typeof body.errorType === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(body.errorType))
      type = ` (${body.errorType})`;
  } catch {
    // Not JSON: the status says enough.
  }
  return new RemoteSignerError(`${label}: ${statusCause(res.status)}${type}`, text);
}

async function poster(signer: SignerConfigOf<'cdp'>, settings: SignerSettings): Promise<Post> {
  const { getAuthHeaders } = await import('@coinbase/cdp-sdk/auth');
  const base = baseUrl(signer.id, settings.cdpApiBaseUrl, 'CDP_API_BASE_URL');
  const c = signer.config;
  const timeoutMs = settings.timeoutMs;
  return (what, path, body) => {
    const label = `signer '${signer.id}': CDP ${what}`;
    return remoteCall(label, timeoutMs, async (signal) => {
      const url = new URL(base + path);
      let headers: Record<string, string>;
      try {
        headers = await getAuthHeaders({
          apiKeyId: c.api_key_id,
          apiKeySecret: c.api_key_secret.value,
          walletSecret: c.wallet_secret.value,
          requestMethod: 'POST',
          requestHost: url.host,
          requestPath: url.pathname,
          requestBody: body,
          source: 'relaybox',
        });
      } catch {
        // The secrets' form is checked at creation (checkCdpSecrets): what is left is the SDK's own failure.
        throw new RemoteSignerError(
          `${label}: the request could not be signed with api_key_secret and wallet_secret (check both, as the CDP portal gives them)`,
        );
      }
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
      if (!res.ok) throw await failure(label, res);
      return (await res.json()) as Record<string, unknown>;
    });
  };
}

function evmSigner(signer: SignerConfigOf<'cdp'>, post: Post): Signer {
  const address = getAddress(signer.config.account_address);
  return {
    address,
    async signEvmDigest(digest) {
      const answer = await post('sign hash', `/v2/evm/accounts/${address}/sign`, {
        hash: `0x${Buffer.from(digest).toString('hex')}`,
      });
      const hex = typeof answer.signature === 'string' ? answer.signature.replace(/^0x/, '') : '';
      if (!/^[0-9a-fA-F]{130}$/.test(hex))
        throw new RemoteSignerError(`signer '${signer.id}': CDP sign hash: the answer holds no 65-byte signature`);
      try {
        return evmSignatureFrom(Buffer.from(hex.slice(0, 128), 'hex'), digest, address);
      } catch (err) {
        throw new RemoteSignerError(`signer '${signer.id}': CDP account ${address}: ${(err as Error).message}`);
      }
    },
  };
}

/** `raw`: the account's 32-byte public key (its base58 address, decoded). */
function solanaSigner(signer: SignerConfigOf<'cdp'>, post: Post, raw: Uint8Array): Signer {
  const address = signer.config.account_address;
  const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  const label = `signer '${signer.id}': CDP sign transaction`;
  const sign = async (message: Uint8Array) => {
    let index: number;
    let wire: Uint8Array;
    try {
      index = requiredSigners(message).findIndex((key) => Buffer.compare(Buffer.from(key), Buffer.from(raw)) === 0);
      wire = unsignedWire(message);
    } catch (err) {
      throw new RemoteSignerError(
        `${label}: the message is not a Solana transaction message: ${(err as Error).message}`,
      );
    }
    if (index < 0) throw new RemoteSignerError(`${label}: account ${address} is not a signer of this transaction`);
    const answer = await post('sign transaction', `/v2/solana/accounts/${address}/sign/transaction`, {
      transaction: Buffer.from(wire).toString('base64'),
    });
    let signature: Uint8Array;
    try {
      signature = signatureAt(
        new Uint8Array(Buffer.from(String(answer.signedTransaction ?? ''), 'base64')),
        message,
        index,
      );
    } catch (err) {
      throw new RemoteSignerError(`${label}: ${(err as Error).message}`);
    }
    if (!verify(null, message, publicKey, signature))
      throw new RemoteSignerError(`${label}: the signature does not verify against account ${address}: refused`);
    return signature;
  };
  return { address, ed25519: { address, sign } };
}

export const createSigner: SignerFactory = async (entry, networkType, { settings }): Promise<Signer> => {
  const signer = entry as SignerConfigOf<'cdp'>;
  checkCdpSecrets(signer);
  const account = signer.config.account_address;
  if (networkType === 'stellar')
    throw new Error(`signer '${signer.id}': a cdp signer signs for EVM and Solana, not Stellar`);
  if (networkType === 'evm' && !(account.startsWith('0x') && isAddress(account, { strict: false })))
    throw new Error(`signer '${signer.id}': 'account_address' must be a CDP EVM account (0x…) for an EVM relayer`);
  // @solana/kit is loaded for a Solana relayer only: an EVM deployment never pays for it.
  const kit = networkType === 'solana' ? await import('@solana/kit') : undefined;
  if (kit && !kit.isAddress(account))
    throw new Error(
      `signer '${signer.id}': 'account_address' must be a CDP Solana account (base58) for a Solana relayer`,
    );
  const post = await poster(signer, settings);
  return kit
    ? solanaSigner(signer, post, new Uint8Array(kit.getBase58Encoder().encode(account)))
    : evmSigner(signer, post);
};
