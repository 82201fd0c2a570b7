// Broadcasting an EVM transaction's newest version and writing what the node said (sent → submitted, sent_at).
import type { Store } from '../../ports.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import type { BroadcastOutcome, EvmChain, Hex } from '../../chains/ports.ts';
import type { Log } from '../../log.ts';
import type { RecordWriter } from '../record-writer.ts';
import { asEvm } from './versions.ts';

export interface EvmSubmitter {
  /**
   * Broadcasts `stored`'s newest raw transaction. Accepted (or already known for our own hash) → `submitted` with
   * `sent_at` (when not already). Returns the node's outcome; refusals are left to the relayer's check job.
   */
  submit(chain: EvmChain, stored: StoredTransaction): Promise<BroadcastOutcome>;
}

export function createEvmSubmitter(deps: {
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  logger: Log;
}): EvmSubmitter {
  const { store, writer, logger } = deps;

  /**
   * `submitted` writes of one event-loop turn share one store transaction (a burst of sends costs one commit for
   * them, not one each). Each is read and written inside it, so none can lose a race: a record that moved on (a
   * newer version, or mined meanwhile) is left as it is.
   */
  const queue: Array<{ id: string; hash: string; at: string; done: () => void }> = [];

  async function flush(): Promise<void> {
    const batch = queue.splice(0);
    try {
      await store.atomically(async (tx) => {
        // One read and one write for the whole batch (on PostgreSQL, round trips per batch rather than per send).
        const found = new Map(
          (await tx.transactions.findMany(batch.map((item) => item.id))).map((s) => [s.record.id, s]),
        );
        const changes: Array<{ stored: StoredTransaction; next: TransactionRecord }> = [];
        for (const item of batch) {
          const current = found.get(item.id);
          const r = current && asEvm(current.record);
          if (!current || !r || r.hash !== item.hash || (r.status !== 'pending' && r.status !== 'sent')) continue;
          found.delete(item.id);
          changes.push({ stored: current, next: { ...r, status: 'submitted', sent_at: r.sent_at ?? item.at } });
        }
        if (changes.length > 0) await writer.updateMany(tx, changes, 'evm');
      });
    } catch (err) {
      logger.warn(
        { err, transactions: batch.length },
        'could not record broadcasts as submitted; the relayer check does it',
      );
    } finally {
      for (const item of batch) item.done();
    }
  }

  function markSubmitted(id: string, hash: string): Promise<void> {
    return new Promise((done) => {
      queue.push({ id, hash, at: new Date().toISOString(), done });
      if (queue.length === 1) setImmediate(() => void flush());
    });
  }

  return {
    async submit(chain, stored) {
      const r = asEvm(stored.record);
      writer.broadcasting(r);
      const outcome = await chain.broadcast(r.raw, r.hash as Hex);
      if (outcome.status === 'submitted') {
        if (r.status === 'pending' || r.status === 'sent') await markSubmitted(r.id, r.hash);
      } else {
        const reason = outcome.status === 'rejected' ? outcome.reason : 'unavailable';
        logger.warn(
          {
            transactionId: r.id,
            relayerId: r.relayer_id,
            nonce: r.nonce,
            hash: r.hash,
            reason,
            message: outcome.message,
          },
          'broadcast not accepted; the relayer check retries',
        );
      }
      return outcome;
    },
  };
}
