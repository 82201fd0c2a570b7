// What the typed key may do, from GET /api/v1/api-keys/me: the console offers an action only when the server would
// allow its call, and a page only when the key may read something on it (the server still checks every call).

export type Action = 'read' | 'execute' | 'manage';
export type Area = 'relayer' | 'plugin' | 'notification' | 'signer' | 'network' | 'api_key' | 'metrics';

export interface Me {
  kind: 'admin' | 'key';
  id: string | null;
  name: string;
  permissions: string[];
  can: Record<Area, Record<Action, 'all' | string[]>>;
}

/** On one thing: `may(me, 'relayer', 'execute', 'sepolia-example')`. */
export const may = (me: Me, area: Area, action: Action, id: string): boolean => {
  const ids = me.can[area]?.[action];
  return ids === 'all' || (Array.isArray(ids) && ids.includes(id));
};

/** On every id: what a route that names no id needs (creating a relayer, a notification, a signer, a key). */
export const mayAll = (me: Me, area: Area, action: Action): boolean => me.can[area]?.[action] === 'all';

/** On at least one id: a page of that area has something to show. */
export const mayAny = (me: Me, area: Area, action: Action): boolean => {
  const ids = me.can[area]?.[action];
  return ids === 'all' || (Array.isArray(ids) && ids.length > 0);
};

/** True when the key can change nothing anywhere. */
export const readOnly = (me: Me): boolean =>
  (Object.keys(me.can) as Area[]).every((area) => !mayAny(me, area, 'execute') && !mayAny(me, area, 'manage'));
