// What the API key use cases need from storage.

export interface ApiKeyRow {
  id: string;
  name: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  key_hash: string;
  permissions: string[];
  allowed_origins: string[];
  created_at: string;
  /** This key's own rate limit; null: the service's (RATE_LIMIT_RPS / RATE_LIMIT_BURST). */
  rate_limit: KeyRateLimit | null;
}

/** A steady rate and a burst allowance, as the config's RATE_LIMIT_RPS / RATE_LIMIT_BURST. */
export interface KeyRateLimit {
  requests_per_second: number;
  burst_size: number;
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
