// What the typed key may do, from GET /api/v1/api-keys/me: the console enables a button only when the server would
// allow its call (the server still checks every call).

export type Action = 'read' | 'execute' | 'manage';
export type Area = 'relayer' | 'plugin' | 'notification' | 'signer' | 'network' | 'api_key' | 'metrics';

export interface Me {
  kind: 'admin' | 'key';
  id: string | null;
  name: string;
  permissions: string[];
  can: Record<Area, Record<Action, 'all' | string[]>>;
}

export const may = (me: Me, area: Area, action: Action, id: string): boolean => {
  const ids = me.can[area]?.[action];
  return ids === 'all' || (Array.isArray(ids) && ids.includes(id));
};

/** True when the key can change nothing anywhere. */
export const readOnly = (me: Me): boolean =>
  (Object.keys(me.can) as Area[]).every((area) => {
    const { execute, manage } = me.can[area];
    return execute !== 'all' && execute.length === 0 && manage !== 'all' && manage.length === 0;
  });

/** The button title that says why it is disabled. */
export const needs = (area: Area, action: Action, id: string) => `read-only for this key: needs ${area}:${id}:${action}`;
