// Who is calling: the bootstrap API_KEY (every right) or a stored key (its permissions, its own rate limit).
import type { ApiKeyRow, KeyRateLimit } from './ports.ts';
import { allows, readableIds, type Area, type Need } from './permissions.ts';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'key'; id: string; name: string; permissions: string[]; rate_limit: KeyRateLimit | null };

export const ADMIN: Principal = { kind: 'admin' };

export const principalOfKey = (row: ApiKeyRow): Principal => ({
  kind: 'key',
  id: row.id,
  name: row.name,
  permissions: row.permissions,
  rate_limit: row.rate_limit,
});

export const principalAllows = (p: Principal, need: Need): boolean => p.kind === 'admin' || allows(p.permissions, need);

/** The ids of an area this caller may read; a list route answers only these. */
export const principalReadable = (p: Principal, area: Area): 'all' | 'none' | string[] =>
  p.kind === 'admin' ? 'all' : readableIds(p.permissions, area);

/** How the caller is named in a refusal: never a secret. */
export const principalName = (p: Principal): string => (p.kind === 'admin' ? 'API_KEY' : `API key '${p.name}'`);
