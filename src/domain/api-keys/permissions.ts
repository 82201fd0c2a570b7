// API key permissions: `<area>:<id|all>:<read|execute|manage>` (the reference's form, e.g. `relayer:all:execute`),
// `*` for any part. Pure functions: what a request needs, whether a key's permissions grant it, which ids a key
// may list, and whether one set of permissions lies within another (docs/security.md, "Authorization").

export type Action = 'read' | 'execute' | 'manage';
const AREAS = ['relayer', 'plugin', 'notification', 'signer', 'network', 'api_key', 'metrics'] as const;
export type Area = (typeof AREAS)[number];

/** What one request needs. `id` is the resource named in the path; null when the path names none. */
export interface Need {
  area: Area;
  id: string | null;
  action: Action;
  /** A list route: answered filtered to the ids the key may read, instead of needing a wildcard. */
  list?: boolean;
  /** About the calling key itself (its own permissions): every key may. */
  self?: boolean;
}

/** One permission string, understood. `id: '*'` stands for `all` and `*`; `area: '*'` for every area. */
interface Grant {
  area: Area | '*';
  id: string;
  action: Action;
}

const RANK: Record<Action, number> = { read: 0, execute: 1, manage: 2 };
const WILD = '*';

/**
 * The grant a permission string makes, or undefined when it makes none: the reference stores any string, so an
 * unknown area or action, or a string of another form, is kept but grants nothing. The id is everything between
 * the first and the last `:` (network ids such as `evm:sepolia` contain one).
 */
function parsePermission(permission: string): Grant | undefined {
  const first = permission.indexOf(':');
  const last = permission.lastIndexOf(':');
  if (first <= 0 || last <= first + 1 || last === permission.length - 1) return undefined;
  const area = permission.slice(0, first);
  const id = permission.slice(first + 1, last);
  const action = permission.slice(last + 1);
  if (area !== WILD && !(AREAS as readonly string[]).includes(area)) return undefined;
  if (action !== WILD && !(action in RANK)) return undefined;
  return {
    area: area as Area | '*',
    id: id === 'all' ? WILD : id,
    action: action === WILD ? 'manage' : (action as Action),
  };
}

const grantsOf = (permissions: readonly string[]): Grant[] =>
  permissions.map(parsePermission).filter((g): g is Grant => g !== undefined);

const areaCovers = (grant: Grant, area: Area | '*') => grant.area === WILD || grant.area === area;

/**
 * True when one permission covers the need: the area matches, the id matches (a wildcard id covers every id;
 * an id-scoped permission covers only its own id, never a route that names no id), and the action is at least
 * the one needed. A list route also passes with a read on any one id: its answer is filtered (readableIds).
 */
export function allows(permissions: readonly string[], need: Need): boolean {
  if (need.self) return true;
  if (need.list) return readableIds(permissions, need.area) !== 'none';
  return grantsOf(permissions).some(
    (g) =>
      areaCovers(g, need.area) &&
      (g.id === WILD || (need.id !== null && g.id === need.id)) &&
      RANK[g.action] >= RANK[need.action],
  );
}

/** The ids of an area a key may read: 'all', a list, or 'none' (a list route then answers 403). */
export function readableIds(permissions: readonly string[], area: Area): 'all' | 'none' | string[] {
  const ids = new Set<string>();
  for (const g of grantsOf(permissions)) {
    if (!areaCovers(g, area)) continue;
    if (g.id === WILD) return 'all';
    ids.add(g.id);
  }
  return ids.size === 0 ? 'none' : [...ids];
}

/** True when `holder` grants everything `requested` grants (a permission that grants nothing needs every right). */
function covered(holder: readonly Grant[], requested: string): boolean {
  const want = parsePermission(requested);
  // A string that grants nothing today could grant something in a later version: only an all-powerful key stores one.
  if (!want) return holder.some((g) => g.area === WILD && g.id === WILD && g.action === 'manage');
  return holder.some(
    (g) =>
      (g.area === WILD || g.area === want.area) &&
      (g.id === WILD || g.id === want.id) &&
      RANK[g.action] >= RANK[want.action],
  );
}

/** The requested permissions that `creator` does not hold: a key may mint (or be changed to) only a subset of its creator's rights. */
export function exceeding(creator: readonly string[], requested: readonly string[]): string[] {
  const holder = grantsOf(creator);
  return requested.filter((p) => !covered(holder, p));
}

const AREA_OF: Record<string, Area> = {
  relayers: 'relayer',
  plugins: 'plugin',
  notifications: 'notification',
  signers: 'signer',
  networks: 'network',
  'api-keys': 'api_key',
  metrics: 'metrics',
  // The live events stream carries relayers' transaction changes: a list of relayers, filtered per key.
  events: 'relayer',
};

/** Areas whose bare collection path (`GET /relayers`) is a list route, filtered per key. */
const LISTED: ReadonlySet<Area> = new Set(['relayer', 'plugin', 'notification', 'signer', 'network', 'api_key']);

/**
 * The need of a request under /api/v1 (`path` without the prefix): GET reads; a call or a write below a resource
 * (a transaction, a plugin call, a signature) executes; creating, changing or deleting the resource itself manages.
 * Undefined for a path outside the managed areas (refused to stored keys).
 */
export function needOf(method: string, path: string): Need | undefined {
  // The reference's scrape route lives outside the metrics path: reading it is reading every metric.
  if (/^\/debug\/metrics(\/|$)/.test(path)) return { area: 'metrics', id: null, action: 'read' };
  const [first, id, ...rest] = path.split('/').filter(Boolean);
  if (first === 'api-keys' && id === 'me' && rest.length === 0 && (method === 'GET' || method === 'HEAD'))
    return { area: 'api_key', id: null, action: 'read', self: true };
  const area = first === undefined ? undefined : AREA_OF[first];
  if (!area) return undefined;
  const isCall = rest[0] === 'call';
  const reads = method === 'GET' || method === 'HEAD';
  let action: Action;
  if (reads) action = isCall ? 'execute' : 'read';
  else action = rest.length > 0 ? 'execute' : 'manage';
  const need: Need = { area, id: id === undefined ? null : decodeURIComponentSafe(id), action };
  if (reads && id === undefined && LISTED.has(area)) need.list = true;
  return need;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Per area and action, the ids a key may act on: 'all', a list, or none (an empty list). What a client shows as enabled. */
export type Abilities = Record<Area, Record<Action, 'all' | string[]>>;

export function abilities(permissions: readonly string[]): Abilities {
  const grants = grantsOf(permissions);
  const out = {} as Abilities;
  for (const area of AREAS) {
    out[area] = { read: [], execute: [], manage: [] };
    for (const action of ['read', 'execute', 'manage'] as const) {
      const ids = new Set<string>();
      let all = false;
      for (const g of grants) {
        if (!areaCovers(g, area) || RANK[g.action] < RANK[action]) continue;
        if (g.id === WILD) all = true;
        else ids.add(g.id);
      }
      out[area][action] = all ? 'all' : [...ids].sort();
    }
  }
  return out;
}

/** The action name as docs and error texts say it: `execute on relayer 'evm'`, `read on relayers`. */
export function describeNeed(need: Need): string {
  return `${need.action} on ${need.area}${need.id !== null ? ` '${need.id}'` : 's'}`;
}
