// What the signer use cases need from storage; src/store/<adapter>/ implements it.

export interface SignerRow {
  id: string;
  /** 'local' (a keystore or a raw key of the config file, or a key given through the API). */
  type: string;
  /** Non-secret settings shown by the API (e.g. nothing, or a keystore's file name); never a key. */
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
