// Waiting for relayed transactions to reach a final status through the API (with caps, so a broken test fails, never hangs).
import { FINAL_STATUSES } from '../../src/domain/types.ts';
import type { TestServer } from '../helper.ts';
import { waitFor } from '../webhooks/support.ts';

/** Polls the transaction until its status is final (a cap so a broken test fails instead of hanging). */
export function waitFinal(
  s: { request: TestServer['request'] },
  relayer: string,
  id: string,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const res = await s.request('GET', `/api/v1/relayers/${relayer}/transactions/${id}`);
      return FINAL_STATUSES.has(res.body.data?.status) ? (res.body.data as Record<string, any>) : undefined;
    },
    `transaction ${id} to be final`,
    timeoutMs,
  );
}

/** Waits for many transactions at once, looking at the unfinished ones in turn (not 200 pollers hammering the API). */
export async function waitAllFinal(
  s: { request: TestServer['request'] },
  relayer: string,
  ids: string[],
  timeoutMs = 120_000,
): Promise<Array<Record<string, any>>> {
  const finals = new Map<string, Record<string, any>>();
  const deadline = Date.now() + timeoutMs;
  while (finals.size < ids.length) {
    if (Date.now() > deadline)
      throw new Error(`timed out: ${ids.length - finals.size} of ${ids.length} transactions not final`);
    for (const id of ids.filter((i) => !finals.has(i))) {
      const res = await s.request('GET', `/api/v1/relayers/${relayer}/transactions/${id}`);
      if (FINAL_STATUSES.has(res.body.data?.status)) finals.set(id, res.body.data);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return ids.map((id) => finals.get(id)!);
}
