// What the API key use cases need from storage.

export interface ApiKeyRow {
  id: string;
  name: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  key_hash: string;
  permissions: string[];
  allowed_origins: string[];
  created_at: string;
}

export interface ApiKeysRepo {
  /** False when the id or the hash is taken. */
  insert(row: ApiKeyRow): Promise<boolean>;
  get(id: string): Promise<ApiKeyRow | undefined>;
  findByHash(keyHash: string): Promise<ApiKeyRow | undefined>;
  /** Newest first. */
  list(limit: number, offset: number): Promise<ApiKeyRow[]>;
  count(): Promise<number>;
  remove(id: string): Promise<boolean>;
}
