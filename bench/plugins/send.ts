// Bench: one relayer API call (sendTransaction), returned with its trace.
export const settings = { emit_traces: true };

export async function handler(context: {
  api: { useRelayer(id: string): { sendTransaction(req: unknown): Promise<{ id: string }> } };
}) {
  const relayer = context.api.useRelayer('sepolia-example');
  const tx = await relayer.sendTransaction({
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: 1,
    gas_price: 1000000000,
  });
  return { id: tx.id };
}
