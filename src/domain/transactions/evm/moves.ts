// The steps the relayer check takes for one EVM transaction: settle a used nonce (mined, confirmed, failed, or taken
// by another transaction), broadcast, re-price, replace with a NOOP. Each writes with a version check: a concurrent
// writer (a replace, another instance) wins, and the next run decides again from what it wrote.
import { AppError } from '../../../errors.ts';
import type { Receipt, Hex } from '../../chains/ports.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord, TransactionStatus } from '../../types.ts';
import type { EvmCheckDeps, Tick } from './tick.ts';
import {
  asEvm,
  isNoop,
  noopPrepared,
  preparedOf,
  repricing,
  samePricing,
  withVersion,
  type EvmRecord,
} from './versions.ts';
import { raisesPrice } from './pricing.ts';
import { exactInteger } from './transaction.ts';
import { lacksMempool, noopGasLimit } from './network-kind.ts';
import { capBinds, isWaitingAtCap } from './fee-cap-wait.ts';
import { createFeeCapWait } from './fee-cap-moves.ts';
import { createSettleWrites } from './settle-writes.ts';
import { resubmitTimeoutMs } from './timing.ts';
import { createWaitClock, isStuckReason, sameTopPrice, STUCK_REASONS, type StuckCause } from './stuck.ts';

class Conflict extends AppError {
  constructor() {
    super('INTERNAL', { reason: 'changed by another writer' });
  }
}

export function createEvmMoves(deps: EvmCheckDeps) {
  const { store, writer, submitter, logger } = deps;

  const write = (stored: StoredTransaction, next: TransactionRecord) =>
    store.atomically((tx) => writer.update(tx, stored, next, 'evm'));
  const settleWrite = createSettleWrites({ store, writer });
  const feeCapWait = createFeeCapWait({ write, logger, observer: deps.observer });
  const waits = createWaitClock();
  const escalated = (t: Tick, r: EvmRecord, cause: StuckCause) => {
    deps.observer?.stuckEscalation?.(t.network.network, cause);
    logger.warn(
      { transactionId: r.id, relayerId: r.relayer_id, nonce: r.nonce, hash: r.hash, cause },
      `waited on the node past the deadline: ${STUCK_REASONS[cause]}`,
    );
  };

  async function failed(t: Tick, stored: StoredTransaction, receipt: Receipt): Promise<void> {
    const reason = await t.chain.revertReason(receipt.hash).catch(() => null);
    const text = reason
      ? `${reason.message}${reason.data && reason.kind !== 'error' ? ` (revert data ${reason.data})` : ''}`
      : 'no reason given by the node';
    await write(stored, {
      ...stored.record,
      status: 'failed',
      hash: receipt.hash,
      status_reason: `reverted on chain in block ${receipt.blockNumber}: ${text}`,
    });
  }

  /** The chain used this nonce: mined (and confirmed at depth), failed, or taken by a transaction from elsewhere. */
  async function settle(t: Tick, stored: StoredTransaction): Promise<void> {
    const r = asEvm(stored.record);
    const receipt = await findReceipt(t, r);
    if (!receipt) return nonceTaken(t, stored);
    if (receipt.status === 'reverted' && !(r.noop_hashes ?? []).includes(receipt.hash))
      return failed(t, stored, receipt);
    const minedRecord: TransactionRecord = {
      ...r,
      ...(await olderVersionFields(t, r, receipt.hash)),
      status: 'mined',
      hash: receipt.hash,
      ...(isWaitingAtCap(r) || isStuckReason(r.status_reason) ? { status_reason: null } : {}),
    };
    const newlyMined = r.status !== 'mined' || r.hash !== receipt.hash;
    const deep = t.head - receipt.blockNumber + 1n >= BigInt(t.network.required_confirmations ?? 1);
    if (!deep) {
      if (newlyMined) await settleWrite({ stored, mined: minedRecord });
      return;
    }
    const end = finalOf(r, receipt.hash);
    const finalRecord = {
      ...minedRecord,
      status: end.status,
      status_reason: end.reason,
      confirmed_at: end.status === 'confirmed' ? new Date().toISOString() : null,
    };
    // Mined and final in one store transaction (two events, in order), shared with the other settlements of this turn.
    await settleWrite({ stored, mined: newlyMined ? minedRecord : undefined, final: finalRecord });
  }

  /**
   * No receipt for any version of ours, and the chain used the nonce: another transaction took it. A version the node
   * places in a block is mined and its receipt lags: wait for it (said in status_reason past the deadline). One the
   * node only holds in its pool can never be mined at a used nonce: it is waited for until the deadline at most.
   */
  async function nonceTaken(t: Tick, stored: StoredTransaction): Promise<void> {
    const r = asEvm(stored.record);
    const known = await Promise.all(r.hashes.map((h) => t.chain.transaction(h as Hex)));
    const deadline = resubmitTimeoutMs(t.network, r.speed, 1);
    if (known.some((k) => k !== null && k.blockNumber !== null)) {
      if (waits.waited(r.id, 'receipt', t.now) < deadline || r.status_reason === STUCK_REASONS.receipt_missing) return;
      escalated(t, r, 'receipt_missing');
      await write(stored, { ...r, status_reason: STUCK_REASONS.receipt_missing });
      return;
    }
    if (known.some((k) => k !== null)) {
      if (waits.waited(r.id, 'held', t.now) < deadline) return;
      escalated(t, r, 'nonce_taken_held');
    }
    waits.clear(r.id, 'held');
    waits.clear(r.id, 'receipt');
    if (r.is_canceled || isNoop(r)) {
      const status = r.is_canceled ? 'canceled' : 'expired';
      await write(stored, { ...r, status, status_reason: `its nonce ${r.nonce} was used by another transaction` });
      return;
    }
    await renonce(t, stored);
  }

  /** Re-signed under a new nonce (taken like a send's, in the transaction that writes it), then broadcast. */
  async function renonce(t: Tick, stored: StoredTransaction): Promise<void> {
    const r = asEvm(stored.record);
    let written: StoredTransaction;
    try {
      written = await store.atomically(async (tx) => {
        const row = await tx.relayers.getForUpdate(t.relayer.id);
        if (!row) throw new Conflict();
        const nonce = Math.max(row.next_nonce, t.pending);
        if (!(await tx.relayers.advance(row.id, row.next_nonce, nonce + 1, row.last_created_ms))) throw new Conflict();
        // Signed under the row lock: the nonce is only known here (a rare path; one signer round trip).
        const next = {
          ...(await withVersion(r, t.signer, nonce, preparedOf(r), { keepSpeed: true })),
          status: 'sent' as const,
          status_reason: `nonce ${r.nonce} was used by another transaction; re-signed with nonce ${nonce}`,
        };
        const done = await writer.update(tx, stored, next, 'evm');
        if (!done) throw new Conflict();
        return done;
      });
    } catch (err) {
      if (err instanceof Conflict) return;
      throw err;
    }
    logger.warn(
      { transactionId: r.id, from: r.nonce, to: asEvm(written.record).nonce },
      'nonce taken by another transaction: re-signed with a new nonce',
    );
    await broadcast(t, written);
  }

  /**
   * Sends the newest version; a node that wants a higher price gets one at once. Without a pool, "nonce too high"
   * means a nonce below is missing on chain: the check runs again at once, reading the chain's nonces afresh.
   */
  async function broadcast(t: Tick, stored: StoredTransaction): Promise<void> {
    if (t.budget.broadcasts-- <= 0) return;
    const outcome = await submitter.submit(t.chain, stored);
    if (outcome.status !== 'rejected') return;
    if (outcome.reason === 'underpriced' || outcome.reason === 'replacement_underpriced') await bump(t, stored, true);
    else if (outcome.reason === 'nonce_too_high' && lacksMempool(t.network)) t.resyncNow = true;
  }

  /**
   * Re-priced (both fees up by at least 10% and to the network's price for its speed; without a pool, the network's
   * price), same nonce, re-signed, broadcast. Never above the relayer's fee cap: one already at it is broadcast again
   * as it is (not when the node just refused it), waits at the cap (fee-cap-wait.ts), and stays in the check's care.
   */
  async function bump(
    t: Tick,
    stored: StoredTransaction,
    justRefused = false,
    reason?: string,
  ): Promise<'signed' | 'at_cap' | 'later'> {
    // A version that cannot be broadcast in this run is not signed in it either (the next run re-prices).
    if (t.budget.broadcasts-- <= 0) return 'later';
    const r = asEvm(stored.record);
    const prepared = preparedOf(r);
    const fees = await t.fees();
    const noPool = lacksMempool(t.network);
    let pricing = repricing(noPool, prepared.pricing, fees, r.speed ?? 'average', t.signer.feeCap);
    // An escalation at the cap: a new version at the same top price (stuck.ts sameTopPrice says why), once per version.
    const nudged =
      reason !== undefined && !noPool && !raisesPrice(prepared.pricing, pricing)
        ? sameTopPrice(prepared.pricing)
        : null;
    if (nudged) [pricing, reason] = [nudged, STUCK_REASONS.held_at_cap];
    else if (noPool ? samePricing(prepared.pricing, pricing) : !raisesPrice(prepared.pricing, pricing)) {
      const current = await feeCapWait.enter(t, stored, capBinds(fees, r.speed ?? 'average', t.signer.feeCap));
      if (!justRefused && current) await submitter.submit(t.chain, current);
      return 'at_cap';
    }
    // A replacement signed (funds ledger: a new version of the same nonce, at a higher price, or the same at the cap).
    const next = await withVersion(
      r,
      t.signer,
      r.nonce,
      { ...prepared, pricing },
      { noop: isNoop(r), keepSpeed: true },
    );
    const written = await write(stored, reason === undefined || isNoop(r) ? next : { ...next, status_reason: reason });
    if (!written) return 'later';
    logger.info(
      { transactionId: r.id, nonce: r.nonce, hash: asEvm(written.record).hash },
      'transaction re-priced and broadcast again',
    );
    await submitter.submit(t.chain, written);
    return 'signed';
  }

  /**
   * A submitted version the node's pending nonce does not count, past its deadline (the resubmit timeout, or
   * MAX_IDLE_REBROADCASTS re-broadcasts that changed nothing): whatever the node answered, it is re-priced and
   * replaced (bump: under the fee cap, where it then waits). A URL that accepted it while its node never got it is
   * taken out of the broadcasts. True when nothing could be signed above it (at the fee cap): not escalated again.
   */
  async function escalate(t: Tick, stored: StoredTransaction, idle: boolean): Promise<boolean> {
    const r = asEvm(stored.record);
    const known = await t.chain.transaction(r.hash as Hex);
    // Mined since the nonces were read: the next run settles it.
    if (known !== null && known.blockNumber !== null) return false;
    const cause: StuckCause = known === null ? 'not_received' : idle ? 'rebroadcasts' : 'held';
    if (known === null) await t.chain.broadcastDidNotLand?.(r.hash as Hex).catch(() => 0);
    escalated(t, r, cause);
    return (await bump(t, stored, false, STUCK_REASONS[cause])) === 'at_cap';
  }

  /**
   * A NOOP under the same nonce, re-priced: valid_until passed, or (on a rollup) too many versions were signed. It
   * ends `expired` if the NOOP is mined.
   */
  async function noop(t: Tick, stored: StoredTransaction, why: 'expiry' | 'attempts'): Promise<void> {
    const r = asEvm(stored.record);
    // Under the fee cap too: at the cap it may not beat the pool's replacement rule; it is sent and tracked all the same.
    const pricing = repricing(lacksMempool(t.network), preparedOf(r).pricing, await t.fees(), 'fast', t.signer.feeCap);
    const gas = await noopGasLimit(t.chain, t.network, t.relayer.address);
    const reason =
      why === 'attempts'
        ? ROLLUP_ATTEMPTS_REASON
        : r.valid_until === null
          ? 'not mined within 8 hours (the default valid_until): a NOOP replaces it'
          : 'valid_until passed before it was mined: a NOOP replaces it';
    const next = {
      ...(await withVersion(r, t.signer, r.nonce, noopPrepared(t.relayer.address, pricing, gas), { noop: true })),
      status_reason: reason,
    };
    const written = await write(stored, next);
    if (!written) return;
    logger.info({ transactionId: r.id, nonce: r.nonce, why }, 'transaction replaced by a NOOP');
    await submitter.submit(t.chain, written);
  }

  return { write, settle, broadcast, bump, escalate, noop, leaveWaitIfFeesFell: feeCapWait.leaveIfFeesFell };
}

/** The reference's words (MAXIMUM_TX_ATTEMPTS on a `rollup` network); the final reason is derived from them. */
const ROLLUP_ATTEMPTS_REASON = 'Rollup transaction has too many attempts. Replacing with NOOP.';

/** Newest version first: the one most likely mined. */
async function findReceipt(t: Tick, r: EvmRecord): Promise<Receipt | null> {
  for (const h of [...r.hashes].reverse()) {
    const known = t.receipts.get(h.toLowerCase()) ?? (await t.receiptInBlocks(h.toLowerCase(), r.status !== 'mined'));
    if (known) return known;
  }
  const receipts = await Promise.all([...r.hashes].reverse().map((h) => t.chain.receipt(h as Hex)));
  return receipts.find((x) => x !== null) ?? null;
}

/**
 * When an older version is what was mined (it beat a replace, a cancel or an expiry NOOP), the record describes that
 * version: its content and prices as the node reports them, not the newer version's. Nothing to change otherwise.
 */
async function olderVersionFields(t: Tick, r: EvmRecord, minedHash: string): Promise<Partial<EvmRecord>> {
  if (minedHash === r.hash) return {};
  const c = (await t.chain.transaction(minedHash as Hex))?.content;
  if (!c) return {};
  return {
    to: c.to,
    data: c.input === '0x' ? null : c.input,
    value: c.value.toString(),
    gas_limit: exactInteger(c.gas),
    gas_price: c.gasPrice?.toString() ?? null,
    max_fee_per_gas: c.maxFeePerGas?.toString() ?? null,
    max_priority_fee_per_gas: c.maxPriorityFeePerGas?.toString() ?? null,
  };
}

/** How a transaction ends once the version with `hash` is deep enough. */
function finalOf(r: EvmRecord, hash: string): { status: TransactionStatus; reason: string | null } {
  // A confirmed transaction keeps the reason of its last change (re-signed under a new nonce, reorged), if any.
  if (!(r.noop_hashes ?? []).includes(hash)) {
    if (r.is_canceled) return { status: 'confirmed', reason: 'mined before the cancel could replace it' };
    // An expiry (or rollup-limit) NOOP was under way: the reason that announced it no longer holds.
    if ((r.noop_hashes ?? []).length > 0)
      return { status: 'confirmed', reason: 'mined before the NOOP could take its nonce' };
    return {
      status: 'confirmed',
      reason: isWaitingAtCap(r) || isStuckReason(r.status_reason) ? null : r.status_reason,
    };
  }
  if (r.is_canceled) return { status: 'canceled', reason: 'canceled: the NOOP took its nonce' };
  if (r.status_reason === ROLLUP_ATTEMPTS_REASON)
    return { status: 'expired', reason: 'too many attempts on a rollup: a NOOP took its nonce' };
  return { status: 'expired', reason: 'valid_until passed before it was mined: a NOOP took its nonce' };
}
