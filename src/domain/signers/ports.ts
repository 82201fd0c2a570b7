// What the signer use cases need from storage; src/store/<adapter>/ implements it.

export interface SignerRow {
  id: string;
  /** 'local' (a keystore or a raw key of the config file, or a key given through the API). */
  type: string;
  /** Non-secret settings shown by the API (e.g. nothing, or a keystore's file name); never a key. */
  config: Record<string, unknown>;
  /** API-created signers only: the key, sealed by the secret box (plain without STORAGE_ENCRYPTION_KEY). Config signers: null. */
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
  /** Hides the signer; false when there is no visible signer with that id. */
  remove(id: string, now: string): Promise<boolean>;
}
