// API key use cases: create (the secret shown once, only its hash stored; never more rights than its creator's),
// list, permissions, delete, and the lookup the front door makes for a presented key.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page, PageRequest } from '../types.ts';
import type { Log } from '../log.ts';
import type { ApiKeyRow, ApiKeysRepo, KeyRateLimit } from './ports.ts';
import { exceeding } from './permissions.ts';
import { principalName, type Principal } from './principal.ts';

/** An API key as the reference's ApiKeyResponse (never its secret). */
export interface ApiKeyView {
  id: string;
  name: string;
  permissions: string[];
  allowed_origins: string[];
  created_at: string;
  /** Null: the service's default limit. */
  rate_limit: KeyRateLimit | null;
}

export interface CreateApiKeyInput {
  name: string;
  permissions: string[];
  allowed_origins?: string[];
  rate_limit?: KeyRateLimit;
}

export interface ApiKeyService {
  /** The new key with its secret in `value`: the only time the secret is shown. */
  create(input: CreateApiKeyInput, creator: Principal): Promise<ApiKeyView & { value: string }>;
  list(query: PageRequest): Promise<Page<ApiKeyView>>;
  get(id: string): Promise<ApiKeyView>;
  permissions(id: string): Promise<string[]>;
  remove(id: string): Promise<void>;
  /** The stored key a presented secret belongs to, or undefined. */
  find(secret: string): Promise<ApiKeyRow | undefined>;
}

const hashApiKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

const toView = (r: ApiKeyRow): ApiKeyView => ({
  id: r.id,
  name: r.name,
  permissions: r.permissions,
  allowed_origins: r.allowed_origins,
  created_at: r.created_at,
  rate_limit: r.rate_limit,
});

/**
 * The new key's rate limit: never above its creator's (else minting keys would lift a limit). A stored creator's
 * own limit is inherited when none is asked for; the admin key's keys get the service default (null).
 */
function mintedRateLimit(
  asked: KeyRateLimit | undefined,
  creator: Principal,
  defaults: KeyRateLimit,
): KeyRateLimit | null {
  if (asked && asked.burst_size < asked.requests_per_second)
    throw new ValidationError("'rate_limit.burst_size' must be at least 'rate_limit.requests_per_second'");
  if (creator.kind === 'admin') return asked ?? null;
  const ceiling = creator.rate_limit ?? defaults;
  if (!asked) return creator.rate_limit;
  if (asked.requests_per_second > ceiling.requests_per_second || asked.burst_size > ceiling.burst_size) {
    throw new AppError('FORBIDDEN', {
      reason: `${principalName(creator)} may not mint a key with a rate limit above its own (${ceiling.requests_per_second}/s, burst ${ceiling.burst_size})`,
    });
  }
  return asked;
}

/** A key may hand on only rights it holds; the admin key holds them all. */
function requireWithinRights(requested: readonly string[], creator: Principal): void {
  if (creator.kind === 'admin') return;
  const over = exceeding(creator.permissions, requested);
  if (over.length > 0)
    throw new AppError('FORBIDDEN', {
      reason: `${principalName(creator)} may not grant permissions it does not hold: ${over.map((p) => `'${p}'`).join(', ')}`,
    });
}

export function createApiKeyService(deps: {
  repo: ApiKeysRepo;
  logger: Log;
  defaultRateLimit: KeyRateLimit;
}): ApiKeyService {
  const { repo, logger, defaultRateLimit } = deps;
  const require = async (id: string) => {
    const row = await repo.get(id);
    if (!row) throw new NotFoundError('API_KEY_NOT_FOUND', { reason: `API key '${id}' not found` });
    return row;
  };
  return {
    async create(input, creator) {
      requireWithinRights(input.permissions, creator);
      const rateLimit = mintedRateLimit(input.rate_limit, creator, defaultRateLimit);
      // 32 random bytes: as strong as the bootstrap key must be, and long enough to be scrubbed from logs.
      const value = `rbk_${randomBytes(32).toString('base64url')}`;
      const row: ApiKeyRow = {
        id: randomUUID(),
        name: input.name,
        key_hash: hashApiKey(value),
        permissions: input.permissions,
        allowed_origins: input.allowed_origins ?? ['*'],
        created_at: new Date().toISOString(),
        rate_limit: rateLimit,
      };
      if (!(await repo.insert(row))) throw new AppError('INTERNAL', { reason: 'API key id collision; retry' });
      logger.info(
        {
          apiKeyId: row.id,
          permissions: row.permissions,
          createdBy: creator.kind === 'admin' ? 'API_KEY' : creator.id,
        },
        'API key created',
      );
      return { ...toView(row), value };
    },
    async list({ page, per_page }) {
      const [rows, total] = await Promise.all([
        per_page === 0 ? [] : repo.list(per_page, (page - 1) * per_page),
        repo.count(),
      ]);
      return { items: rows.map(toView), pagination: { current_page: page, per_page, total_items: total } };
    },
    get: async (id) => toView(await require(id)),
    permissions: async (id) => (await require(id)).permissions,
    async remove(id) {
      await require(id);
      await repo.remove(id);
      logger.info({ apiKeyId: id }, 'API key deleted');
    },
    find: (secret) => repo.findByHash(hashApiKey(secret)),
  };
}
