// The `vault_transit` signer: the Ed25519 key stays in Vault's Transit engine, which signs each message
// (POST /v1/<mount>/sign/<key_name>, mount `transit` unless configured). `pubkey` is the key's public half in base64
// (as `vault read transit/keys/<name>` shows it): the address comes from it, and every signature Vault answers is
// verified against it before it is used. Solana, and Stellar too (the reference offers Solana only).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Address } from '../keys.ts';
import { RemoteSignerError } from '../remote-call.ts';
import { createVaultApi } from '../vault-api.ts';

// SPKI DER header of an Ed25519 public key (RFC 8410): the 32 key bytes follow.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function publicKeyOf(signer: SignerConfigOf<'vault_transit'>): { raw: Uint8Array; key: KeyObject } {
  const raw = Buffer.from(signer.config.pubkey, 'base64');
  if (raw.length !== 32)
    throw new Error(
      `signer '${signer.id}': 'pubkey' must be the Ed25519 public key in base64 (32 bytes); it has ${raw.length}`,
    );
  return {
    raw: new Uint8Array(raw),
    key: createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' }),
  };
}

export const createSigner: SignerFactory = async (entry, networkType, { settings }): Promise<Signer> => {
  const signer = entry as SignerConfigOf<'vault_transit'>;
  if (networkType === 'evm')
    throw new Error(`signer '${signer.id}': a vault_transit signer signs with Ed25519 (Solana, Stellar), not for EVM`);
  const c = signer.config;
  const publicKey = publicKeyOf(signer);
  const api = createVaultApi({
    signerId: signer.id,
    address: c.address,
    namespace: c.namespace ?? undefined,
    roleId: c.role_id.value,
    secretId: c.secret_id.value,
    timeoutMs: settings.timeoutMs,
  });
  const mount = c.mount_point ?? 'transit';
  const address = await ed25519Address(publicKey.raw, networkType);
  const sign = async (message: Uint8Array) => {
    const signature = await api.transitSign(mount, c.key_name, message);
    // A key of another type (ECDSA, RSA) or another key answers a signature that does not verify: never used.
    if (signature.length !== 64 || !verify(null, message, publicKey.key, signature)) {
      throw new RemoteSignerError(
        `signer '${signer.id}': Vault key '${c.key_name}' answered a signature that does not verify against 'pubkey' (is it an ed25519 key, and is 'pubkey' its public key?)`,
      );
    }
    return signature;
  };
  return { address, ed25519: { address, sign } };
};
