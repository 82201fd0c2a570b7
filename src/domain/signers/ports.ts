// What the signer use cases need: storage (src/store/<adapter>/ implements it) and the keys that sign, wherever they
// are kept (src/signers/<type>/ implements Signer: today a local key; cloud KMS, Vault or an HSM fit the same port).
import type { SignerConfig } from '../../config/config.ts';
import type { NetworkType } from '../types.ts';

/**
 * A key that signs for one network type. The domain never holds key material: it asks the signer to sign digests and
 * bytes it prepared itself. Every operation is async, so a remote signer (KMS, Vault, HSM) fits as a local key does.
 */
export interface Signer {
  /** EVM: the 0x address (EIP-55); Solana: the base58 public key; Stellar: the `G…` account id. */
  readonly address: string;
  /**
   * EVM signers only: secp256k1 over a 32-byte digest, answered as 65 bytes r ‖ s ‖ v (s low as EIP-2 requires,
   * v 27 or 28). EVM transactions, EIP-191 messages and EIP-712 data are all hashed by the domain and signed here.
   */
  signEvmDigest?(digest: Uint8Array): Promise<Uint8Array>;
  /** Solana and Stellar signers with a key; absent for an address-only signer, which cannot sign. */
  readonly ed25519?: Ed25519Signer;
}

/** Ed25519 over the bytes as given (64-byte signature); the shape the Solana and Stellar chain ports sign with. */
export interface Ed25519Signer {
  readonly address: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/**
 * The signer a config entry names, for a network type (its address derived from the key); rejects with an Error
 * naming the signer and the problem. Built by the composition root (src/app.ts) per signer type.
 */
export type SignerResolver = (signer: SignerConfig, networkType: NetworkType) => Promise<Signer>;

export interface SignerRow {
  id: string;
  /** The signer type: 'local' (a keystore or a raw key of the config file, or a key given through the API), 'aws_kms', … */
  type: string;
  /** Non-secret settings shown by the API (a local signer: nothing; another type: its config without secret fields); never a key. */
  config: Record<string, unknown>;
  /**
   * API-created signers only, of any type: every secret field of the signer in this one string (a key, or the JSON of
   * a remote signer's credentials), sealed whole by the secret box under the owner `signer:<id>` (plain without
   * STORAGE_ENCRYPTION_KEY; sealed at start once it is set). `config` never holds a secret. Config signers: null.
   */
  secret: string | null;
  source: 'config' | 'api';
  created_at: string;
  updated_at: string;
}

/** Signers table. Deleted rows are kept hidden (a config signer deleted through the API is not seeded again). */
export interface SignersRepo {
  /** Inserts each config signer never stored before (deleted ones included: they stay deleted). */
  seed(rows: readonly SignerRow[]): Promise<void>;
  /** Inserts; false when a signer with this id exists and is not deleted (a deleted one is replaced). */
  insert(row: SignerRow): Promise<boolean>;
  get(id: string): Promise<SignerRow | undefined>;
  /** Visible signers ordered by id. */
  list(limit: number, offset: number): Promise<SignerRow[]>;
  count(): Promise<number>;
  /** Ids of the config signers that were deleted through the API (for the drift report). */
  deletedIds(): Promise<string[]>;
  /** Hides the signer and drops its secret; false when there is no visible signer with that id. */
  remove(id: string, now: string): Promise<boolean>;
  /** Every row holding a secret, deleted ones included (sealing at rest, src/domain/secrets-at-rest.ts). */
  secrets(): Promise<Array<{ id: string; secret: string }>>;
  /** Replaces the stored form of a row's secret (sealed or re-sealed); the signer itself is unchanged. */
  setSecret(id: string, secret: string): Promise<void>;
}
