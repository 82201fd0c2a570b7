// The pkcs11 adapter (ours; the reference has none): a key in any PKCS#11 token signs — an HSM (Thales, Utimaco,
// YubiHSM, AWS CloudHSM) or SoftHSM. EVM: a secp256k1 key, CKM_ECDSA over the digest, the answer made into r ‖ s ‖ v
// against the key's address (evm-signature.ts). Solana and Stellar: an Ed25519 key, CKM_EDDSA over the message.
// The key never leaves the token; the PIN is used to log in and kept only as the module keeps it.
import { createHash, createPublicKey, verify } from 'node:crypto';
import type { SignerConfigOf } from '../../config/config.ts';
import type { Signer } from '../../domain/signers/ports.ts';
import type { NetworkType } from '../../domain/types.ts';
import { evmAddressFromPublicKey, evmSignatureFrom } from '../evm-signature.ts';
import type { SignerFactory } from '../factory.ts';
import { ed25519Address } from '../keys.ts';
import type { Curve } from './key-info.ts';
import { openKey, type KeyLocation, type Pkcs11Key } from './session.ts';

/**
 * Keys already opened, by where they are, the curve wanted and the PIN's digest: a key used by a Solana and a Stellar
 * relayer (or by two starts in one process) keeps one session. A failed open is not kept.
 */
const opened = new Map<string, Promise<Pkcs11Key>>();

const PURPOSE: Record<NetworkType, string> = { evm: 'an EVM', solana: 'a Solana', stellar: 'a Stellar' };

export const createSigner: SignerFactory = async (signer, networkType, { env }) => {
  if (signer.type !== 'pkcs11') throw new Error(`signer '${signer.id}': not a pkcs11 signer`);
  const named = (err: unknown) => new Error(`signer '${signer.id}': ${(err as Error).message}`);
  try {
    const curve: Curve = networkType === 'evm' ? 'secp256k1' : 'ed25519';
    const key = await open(location(signer, env), curve, `${PURPOSE[networkType]} signer`);
    return networkType === 'evm' ? evmSigner(key, named) : await ed25519Signer(key, networkType, named);
  } catch (err) {
    // One line naming the signer and the cause; a PKCS#11 error's native stack stays out of it.
    throw named(err);
  }
};

function location(signer: SignerConfigOf<'pkcs11'>, env: NodeJS.ProcessEnv): KeyLocation {
  const { module_path, token_label, slot, key_label, key_id, pin } = signer.config;
  // Resolved to plain at load; an `env` reference still here (a config built in code) is read now.
  const value = pin.type === 'plain' ? pin.value : env[pin.value];
  if (!value) throw new Error(`environment variable ${pin.value} (the PKCS#11 PIN) is not set`);
  return {
    modulePath: module_path,
    ...(token_label !== undefined ? { tokenLabel: token_label } : { slot }),
    ...(key_label !== undefined ? { keyLabel: key_label } : { keyId: Buffer.from(key_id!.replace(/^0x/, ''), 'hex') }),
    pin: value,
  };
}

function open(where: KeyLocation, curve: Curve, purpose: string): Promise<Pkcs11Key> {
  const id = JSON.stringify([
    where.modulePath,
    where.tokenLabel,
    where.slot,
    where.keyLabel,
    where.keyId?.toString('hex'),
    curve,
  ]);
  const cacheKey = `${id}\0${createHash('sha256').update(where.pin).digest('hex')}`;
  let key = opened.get(cacheKey);
  if (!key) {
    key = openKey(where, curve, purpose).then((k) => checkPair(k, where));
    opened.set(cacheKey, key);
    key.catch(() => opened.delete(cacheKey));
  }
  return key;
}

// SPKI DER header of an Ed25519 public key (RFC 8410): the 32-byte key follows.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The private and the public key object are found apart (by the same label or id): one probe signature, checked
 * against the public key the address comes from, refuses a pair that is two keys before any send is signed.
 */
async function checkPair(key: Pkcs11Key, where: KeyLocation): Promise<Pkcs11Key> {
  const probe = createHash('sha256').update('relaybox pkcs11 key pair check').digest();
  const signature = await key.sign(probe);
  let matches: boolean;
  if (key.curve === 'ed25519') {
    matches =
      signature.length === 64 &&
      verify(
        null,
        probe,
        createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.publicKey]), format: 'der', type: 'spki' }),
        signature,
      );
  } else {
    try {
      evmSignatureFrom(signature, probe, evmAddressFromPublicKey(key.publicKey));
      matches = true;
    } catch {
      matches = false;
    }
  }
  const name = where.keyLabel !== undefined ? `label '${where.keyLabel}'` : `id ${where.keyId!.toString('hex')}`;
  if (!matches)
    throw new Error(
      `the private key with ${name} does not match the public key with ${name} (they are two different keys; give the two halves of one key pair the same label and id)`,
    );
  return key;
}

function evmSigner(key: Pkcs11Key, named: (err: unknown) => Error): Signer {
  const address = evmAddressFromPublicKey(key.publicKey);
  return {
    address,
    async signEvmDigest(digest) {
      try {
        // CKM_ECDSA signs the 32 bytes as given (no hashing in the token); the answer's s may be high, v is unknown.
        return evmSignatureFrom(await key.sign(digest), digest, address);
      } catch (err) {
        throw named(err);
      }
    },
  };
}

async function ed25519Signer(
  key: Pkcs11Key,
  networkType: Exclude<NetworkType, 'evm'>,
  named: (err: unknown) => Error,
): Promise<Signer> {
  const address = await ed25519Address(key.publicKey, networkType);
  const sign = async (message: Uint8Array) => {
    try {
      const signature = await key.sign(message);
      if (signature.length !== 64)
        throw new Error(`the token answered a ${signature.length}-byte Ed25519 signature; expected 64`);
      return signature;
    } catch (err) {
      throw named(err);
    }
  };
  return { address, ed25519: { address, sign } };
}
