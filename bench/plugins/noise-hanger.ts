// Bench (noisy neighbour): an idle hanger, awaiting a promise nothing settles until its timeout.
export const settings = { timeout: 120 };

export async function handler() {
  await new Promise(() => {});
}
