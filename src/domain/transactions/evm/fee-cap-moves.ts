// Entering and leaving the wait at the fee cap (fee-cap-wait.ts says what it is): the relayer check's writes.
import type { Log } from '../../log.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import type { TransitionObserver } from '../family.ts';
import type { Tick } from './tick.ts';
import { capBinds, feeCapWaitReason, isWaitingAtCap } from './fee-cap-wait.ts';
import { asEvm, isNoop } from './versions.ts';

type Write = (stored: StoredTransaction, next: TransactionRecord) => Promise<StoredTransaction | null>;

/** Entering and leaving the wait, each one write (with its transaction_update event) through the check's `write`. */
export function createFeeCapWait(deps: { write: Write; logger: Log; observer?: TransitionObserver | undefined }) {
  const { write, logger, observer } = deps;
  return {
    /** Enters the wait once (`asks`: the network's price above the cap; null: the cap does not bind). null: lost a race. */
    async enter(t: Tick, stored: StoredTransaction, asks: bigint | null): Promise<StoredTransaction | null> {
      const r = asEvm(stored.record);
      // A NOOP keeps the reason it was sent for (valid_until passed, a cancel).
      if (asks === null || t.signer.feeCap === null || isNoop(r) || isWaitingAtCap(r)) return stored;
      const written = await write(stored, { ...r, status_reason: feeCapWaitReason(t.signer.feeCap, asks) });
      if (!written) return null;
      observer?.feeCapWait?.(t.network.network);
      logger.info(
        { transactionId: r.id, nonce: r.nonce, cap: String(t.signer.feeCap), asks: String(asks) },
        'transaction waiting at the fee cap',
      );
      return written;
    },
    /** Leaves the wait once the network's price for its speed is back at or under the cap. null: lost a race. */
    async leaveIfFeesFell(t: Tick, stored: StoredTransaction): Promise<StoredTransaction | null> {
      const r = asEvm(stored.record);
      if (!isWaitingAtCap(r)) return stored;
      const fees = await t.fees();
      if (!fees || capBinds(fees, r.speed ?? 'average', t.signer.feeCap) !== null) return stored;
      logger.info({ transactionId: r.id, nonce: r.nonce }, 'fees fell under the fee cap: no longer waiting');
      return write(stored, { ...r, status_reason: null });
    },
  };
}
