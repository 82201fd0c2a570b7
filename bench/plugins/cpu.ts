// Bench: CPU-bound work, a loop of 1e5 additions.
export async function handler() {
  let sum = 0;
  for (let i = 0; i < 1e5; i++) sum += i;
  return { sum };
}
