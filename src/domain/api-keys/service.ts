// API key use cases: create (the secret shown once, only its hash stored), list, permissions, delete, and the lookup
// the front door makes for a presented key.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, NotFoundError } from '../../errors.ts';
import type { Page, PageRequest } from '../types.ts';
import type { Log } from '../notifications/ports.ts';
import type { ApiKeyRow, ApiKeysRepo } from './ports.ts';

/** An API key as the reference's ApiKeyResponse (never its secret). */
export interface ApiKeyView {
  id: string;
  name: string;
  permissions: string[];
  allowed_origins: string[];
  created_at: string;
}

export interface CreateApiKeyInput {
  name: string;
  permissions: string[];
  allowed_origins?: string[];
}

export interface ApiKeyService {
  /** The new key with its secret in `value`: the only time the secret is shown. */
  create(input: CreateApiKeyInput): Promise<ApiKeyView & { value: string }>;
  list(query: PageRequest): Promise<Page<ApiKeyView>>;
  permissions(id: string): Promise<string[]>;
  remove(id: string): Promise<void>;
  /** The stored key a presented secret belongs to, or undefined. */
  find(secret: string): Promise<ApiKeyRow | undefined>;
}

export const hashApiKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

const toView = (r: ApiKeyRow): ApiKeyView => ({ id: r.id, name: r.name, permissions: r.permissions, allowed_origins: r.allowed_origins, created_at: r.created_at });

export function createApiKeyService(deps: { repo: ApiKeysRepo; logger: Log }): ApiKeyService {
  const { repo, logger } = deps;
  const require = async (id: string) => {
    const row = await repo.get(id);
    if (!row) throw new NotFoundError('API_KEY_NOT_FOUND', { reason: `API key '${id}' not found` });
    return row;
  };
  return {
    async create(input) {
      // 32 random bytes: as strong as the bootstrap key must be, and long enough to be scrubbed from logs.
      const value = `rbk_${randomBytes(32).toString('base64url')}`;
      const row: ApiKeyRow = {
        id: randomUUID(),
        name: input.name,
        key_hash: hashApiKey(value),
        permissions: input.permissions,
        allowed_origins: input.allowed_origins ?? ['*'],
        created_at: new Date().toISOString(),
      };
      if (!(await repo.insert(row))) throw new AppError('INTERNAL', { reason: 'API key id collision; retry' });
      logger.info({ apiKeyId: row.id, permissions: row.permissions }, 'API key created');
      return { ...toView(row), value };
    },
    async list({ page, per_page }) {
      const [rows, total] = await Promise.all([per_page === 0 ? [] : repo.list(per_page, (page - 1) * per_page), repo.count()]);
      return { items: rows.map(toView), pagination: { current_page: page, per_page, total_items: total } };
    },
    permissions: async (id) => (await require(id)).permissions,
    async remove(id) {
      await require(id);
      await repo.remove(id);
      logger.info({ apiKeyId: id }, 'API key deleted');
    },
    find: (secret) => repo.findByHash(hashApiKey(secret)),
  };
}
