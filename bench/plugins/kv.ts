// Bench: one KV get and one set per call.
export async function handler(context: {
  kv: { get(k: string): Promise<unknown>; set(k: string, v: unknown): Promise<unknown> };
}) {
  const n = ((await context.kv.get('counter')) as number | null) ?? 0;
  await context.kv.set('counter', n + 1);
  return { n };
}
