// Per relayer, the last hour minute by minute: sends, confirmations and failures, and how long the submit stage
// (created → submitted: priced, signed and accepted by a node) and the confirm stage (sent → confirmed) took. Fed by
// the transaction changes this process commits, at their commit.
import type { TransactionRecord, TransactionStatus } from '../types.ts';
import type { TransactionsRepo } from '../relayers/ports.ts';
import { createMinuteSeries, type MinutePoint, type MinuteSeries } from './minute-series.ts';

export interface RelayerActivity {
  observe(record: TransactionRecord, from: TransactionStatus | null, now?: number): void;
  read(relayerId: string, now?: number): MinutePoint[];
}

const FAILED: ReadonlySet<string> = new Set(['failed', 'expired']);

const ms = (iso: unknown): number | undefined => (typeof iso === 'string' ? Date.parse(iso) || undefined : undefined);

export function createRelayerActivity(): RelayerActivity {
  const series = new Map<string, MinuteSeries>();
  const of = (relayerId: string) => {
    let s = series.get(relayerId);
    if (!s) series.set(relayerId, (s = createMinuteSeries()));
    return s;
  };
  return {
    observe(record, from, now = Date.now()) {
      if (from === record.status) return;
      const s = of(record.relayer_id);
      const created = ms(record.created_at);
      if (from === null) s.count('sends', now);
      // The first submission only: a replacement or a cancel's NOOP is submitted again later, and is not this stage.
      const versions = (record as { hashes?: unknown }).hashes;
      const first = !Array.isArray(versions) || versions.length <= 1;
      if (record.status === 'submitted' && first && created) s.sample('submit_ms', Math.max(0, now - created), now);
      if (record.status === 'confirmed') {
        s.count('confirmations', now);
        const start = ms(record.sent_at) ?? created;
        if (start) s.sample('confirm_ms', Math.max(0, (ms(record.confirmed_at) ?? now) - start), now);
      }
      if (FAILED.has(record.status)) s.count('failures', now);
    },
    read: (relayerId, now = Date.now()) => of(relayerId).read(now),
  };
}

const UNFINISHED: readonly TransactionStatus[] = ['pending', 'sent', 'submitted', 'mined'];

/**
 * created_at of the relayer's oldest transaction not yet final, whatever its family, or null: per unfinished status,
 * the last of its list (newest first) read at offset count - 1, through the indexes the list already uses.
 */
export async function oldestUnfinishedAt(
  transactions: Pick<TransactionsRepo, 'count' | 'list'>,
  relayerId: string,
): Promise<string | null> {
  const oldest = await Promise.all(
    UNFINISHED.map(async (status) => {
      const n = await transactions.count(relayerId, status);
      return n > 0 ? ((await transactions.list(relayerId, status, 1, n - 1))[0]?.created_at ?? null) : null;
    }),
  );
  return oldest.filter((t): t is string => t !== null).sort()[0] ?? null;
}
