// Bench (noisy neighbour): a CPU burner, 250 ms of busy loop per call, well within its timeout.
export const settings = { timeout: 10 };

export async function handler() {
  const until = Date.now() + 250;
  let n = 0;
  while (Date.now() < until) n++;
  return { n };
}
