// Bench (noisy neighbour): answers at once but leaves a continuation that would spin forever after its call.
export async function handler(context: { kv: { exists(key: string): Promise<boolean> } }) {
  context.kv.exists('x').then(() => {
    for (;;);
  });
  return 'left a spinner';
}
