// API key permissions: `<area>:<id|all>:<read|execute|manage>` (the reference's form, e.g. `relayer:all:execute`), `*` for any part.

export type Action = 'read' | 'execute' | 'manage';
export const AREAS = ['relayer', 'plugin', 'notification', 'signer', 'network', 'api_key', 'metrics'] as const;
export type Area = (typeof AREAS)[number];

/** What one request needs. `id` is the resource named in the path, when there is one. */
export interface Need {
  area: Area;
  id: string | null;
  action: Action;
}

export const PERMISSION_PATTERN = '^(\\*|[a-z_]+):([A-Za-z0-9_.*-]+):(\\*|read|execute|manage)$';
const PERMISSION = new RegExp(PERMISSION_PATTERN);
const RANK: Record<Action, number> = { read: 0, execute: 1, manage: 2 };

/** True when one of the permissions covers the need: area and id match (or are `*`/`all`), and the action is at least the one needed. */
export function allows(permissions: readonly string[], need: Need): boolean {
  return permissions.some((p) => {
    const m = PERMISSION.exec(p);
    if (!m) return false;
    const [, area, id, action] = m;
    const areaOk = area === '*' || area === need.area;
    const idOk = id === '*' || id === 'all' || need.id === null || id === need.id;
    const actionOk = action === '*' || RANK[action as Action] >= RANK[need.action];
    return areaOk && idOk && actionOk;
  });
}

const AREA_OF: Record<string, Area> = {
  relayers: 'relayer',
  plugins: 'plugin',
  notifications: 'notification',
  signers: 'signer',
  networks: 'network',
  'api-keys': 'api_key',
  metrics: 'metrics',
};

/**
 * The need of a request under /api/v1 (`path` without the prefix): GET reads; a call or a write below a resource
 * (a transaction, a plugin call, a signature) executes; creating, changing or deleting the resource itself manages.
 * Undefined for a path outside the managed areas.
 */
export function needOf(method: string, path: string): Need | undefined {
  // The reference's scrape route lives outside the metrics path: reading it is reading every metric.
  if (/^\/debug\/metrics(\/|$)/.test(path)) return { area: 'metrics', id: null, action: 'read' };
  const [first, id, ...rest] = path.split('/').filter(Boolean);
  const area = first === undefined ? undefined : AREA_OF[first];
  if (!area) return undefined;
  const isCall = rest[0] === 'call';
  let action: Action;
  if (method === 'GET' || method === 'HEAD') action = isCall ? 'execute' : 'read';
  else action = rest.length > 0 ? 'execute' : 'manage';
  return { area, id: id === undefined ? null : decodeURIComponentSafe(id), action };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
