// Example: counts its calls in the plugin's KV store (SQLite); `{"params":{"reset":true}}` starts over.
import type { PluginContext } from '@openzeppelin/relayer-sdk';

export async function handler({ kv, params }: PluginContext) {
  const key = `counter:${params?.key ?? 'default'}`;
  if (params?.reset) await kv.del(key);
  const count = await kv.withLock(key, async () => {
    const next = ((await kv.get<number>(key)) ?? 0) + 1;
    await kv.set(key, next);
    return next;
  });
  return { key, count };
}
