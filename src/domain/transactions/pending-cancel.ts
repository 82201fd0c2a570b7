// Canceling all of a relayer's waiting transactions at once (the reference's "delete pending transactions"): each one
// goes through the same cancel as a single DELETE, and the answer counts what was queued and what could not be.
import { AppError } from '../../errors.ts';
import type { DeletePendingResult, TransactionRecord, TransactionStatus } from '../types.ts';
import type { RelayerRow, TransactionsRepo } from '../relayers/ports.ts';
import { requireActive } from '../relayers/active-state.ts';

/** The statuses the reference cancels: the transaction is not yet in a block (a mined one can no longer be replaced). */
const WAITING: readonly TransactionStatus[] = ['pending', 'sent', 'submitted'];

/** Lowest nonce first, so the NOOPs go out in the order the chain takes them; records without a nonce last. */
function byNonce(a: TransactionRecord, b: TransactionRecord): number {
  const na = typeof a.nonce === 'number' ? a.nonce : Infinity;
  const nb = typeof b.nonce === 'number' ? b.nonce : Infinity;
  return na === nb ? a.created_at.localeCompare(b.created_at) : na - nb;
}

async function waiting(repo: TransactionsRepo, relayerId: string): Promise<TransactionRecord[]> {
  const lists = await Promise.all(
    WAITING.map(async (status) => {
      const total = await repo.count(relayerId, status);
      return total === 0 ? [] : repo.list(relayerId, status, total, 0);
    }),
  );
  return lists.flat().sort(byNonce);
}

export function createPendingCancel(deps: {
  repo: TransactionsRepo;
  cancel: (relayer: RelayerRow, id: string) => Promise<TransactionRecord>;
}) {
  return async function cancelPending(relayer: RelayerRow): Promise<DeletePendingResult> {
    requireActive(relayer);
    // As the reference: Solana relayers do not offer it (its text). Stellar goes through its family's cancel (the
    // reference answers zero counts without canceling anything there).
    if (relayer.network_type === 'solana')
      throw new AppError('NOT_SUPPORTED', { reason: 'Delete pending transactions not supported for Solana relayers' });
    const queued: string[] = [];
    const failed: string[] = [];
    for (const record of await waiting(deps.repo, relayer.id)) {
      try {
        await deps.cancel(relayer, record.id);
        queued.push(record.id);
      } catch {
        // Already final, already being canceled, or changed under us: the reference lists it as not queued.
        failed.push(record.id);
      }
    }
    return {
      queued_for_cancellation_transaction_ids: queued,
      failed_to_queue_transaction_ids: failed,
      total_processed: queued.length + failed.length,
    };
  };
}
