// The `vault` signer (the reference's VaultSigner): logs in to Vault with AppRole, reads the key from a KV v2 secret
// (its `value` field: 32 bytes of hex, 0x optional) once, then signs in this process as a local key does. EVM: the
// key is a secp256k1 private key; Solana and Stellar: an Ed25519 seed. Mount point `secret` unless configured.
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Signer, evmSigner } from '../keys.ts';
import { createVaultApi } from '../vault-api.ts';

const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

async function readKey(signer: SignerConfigOf<'vault'>, timeoutMs: number): Promise<string> {
  const c = signer.config;
  const api = createVaultApi({
    signerId: signer.id,
    address: c.address,
    namespace: c.namespace ?? undefined,
    roleId: c.role_id.value,
    secretId: c.secret_id.value,
    timeoutMs,
  });
  const mount = c.mount_point ?? 'secret';
  const data = await api.readKv(mount, c.key_name);
  const value = typeof data.value === 'string' ? data.value.trim() : '';
  const where = `signer '${signer.id}': Vault secret '${c.key_name}' at '${mount}'`;
  if (!value) throw new Error(`${where} has no 'value' field (the key, 32 bytes of hex)`);
  if (!HEX_KEY.test(value)) throw new Error(`${where}: 'value' must be 32 bytes of hex (64 hex digits, 0x optional)`);
  return value.replace(/^0x/i, '');
}

export const createSigner: SignerFactory = async (entry, networkType, { settings }): Promise<Signer> => {
  const signer = entry as SignerConfigOf<'vault'>;
  const key = await readKey(signer, settings.timeoutMs);
  if (networkType === 'evm') return evmSigner(`0x${key}`);
  const ed25519 = await ed25519Signer(Buffer.from(key, 'hex'), networkType);
  return { address: ed25519.address, ed25519 };
};
