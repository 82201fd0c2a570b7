// Bench: returns its params.
export async function handler(context: { params: unknown }) {
  return context.params;
}
