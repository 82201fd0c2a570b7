// Bench (crashing neighbour): every call exhausts its 16 MB sandbox key by key, the pattern that kills the runtime
// process with a catastrophic out-of-memory (docs/plugins.md, "Crashes"); a long timeout, so a loaded machine sees the OOM, not a 504.
export const settings = { memory_mb: 16, timeout: 120 };

export async function handler() {
  const o: Record<string, number> = {};
  for (let i = 0; ; i++) o['k' + i] = i;
}
