// Bench: ten log lines per call, returned with emit_logs.
export const settings = { emit_logs: true };

export async function handler(context: { params: unknown }) {
  for (let i = 0; i < 10; i++) console.log(`line ${i}`, { i });
  return context.params;
}
