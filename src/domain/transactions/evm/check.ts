// The `evm.check` job: one per relayer with non-final transactions, due about twice a block. It reads the chain once
// per run (head, the account's latest and pending nonces), so transactions whose nonce the chain has not used cost
// no RPC; only those whose nonce was used are looked up (receipts). Each run walks at most WINDOW transactions,
// lowest nonce first: higher ones cannot be mined before them anyway.
import type { RelayerRow, StoredTransaction } from '../../relayers/ports.ts';
import type { FeeSuggestions, Hex } from '../../chains/ports.ts';
import type { JobHandler } from '../../jobs/scheduler.ts';
import type { EvmCheckDeps, Tick } from './tick.ts';
import { asEvm, isNoop } from './versions.ts';
import { checkIntervalMs, resubmitTimeoutMs } from './timing.ts';
import { createEvmMoves } from './moves.ts';
import { createReceiptReader } from './receipt-reader.ts';
import { fillNonceGaps } from './gaps.ts';
import { createSignBackoff, isSignerFailure } from './sign-backoff.ts';
import { isRollup, lacksMempool } from './network-kind.ts';
import { isWaitingAtCap } from './fee-cap-wait.ts';
import { evmExpiresAt } from '../valid-until.ts';
import { createIdleRebroadcasts } from './stuck.ts';
import { laneKey } from '../../relayers/lanes.ts';
import { createLaneHealth, OUT_OF_ROUTING_CHECK_MS } from './lane-health.ts';
import { isFundingLane } from '../../relayers/funding.ts';

/** A pool with a funding key is checked at least this often, nothing in flight: its lanes' balances are read. */
const FUNDING_WATCH_MS = 60_000;

export const EVM_CHECK = 'evm.check';
/** Transactions walked per run, lowest nonce first. */
export const WINDOW = 256;
/** How long a freshly signed version is left to the broadcast right after its commit. */
const FAST_PATH_GRACE_MS = 2_000;
/** Versions a transaction may have on a `rollup` network before a NOOP replaces it (the reference's MAXIMUM_TX_ATTEMPTS). */
const MAX_ROLLUP_ATTEMPTS = 50;
/** Transactions handled at once within a run (RPC lookups in flight). */
const PARALLEL = 16;

async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function createEvmCheck(deps: EvmCheckDeps): { handler: JobHandler } {
  const { relayers, store, logger } = deps;
  const moves = createEvmMoves(deps);
  const backoff = createSignBackoff(logger);
  const receiptReader = createReceiptReader();
  const idle = createIdleRebroadcasts();

  /** The chain handed out nonces we did not (another sender with this key): never allocate below them. */
  async function resync(relayer: RelayerRow, chainPending: number): Promise<void> {
    if (chainPending <= relayer.next_nonce) return;
    await store.atomically(async (tx) => {
      const row = await tx.relayers.getForUpdate(relayer.id);
      if (!row || row.next_nonce >= chainPending) return;
      await tx.relayers.advance(row.id, row.next_nonce, chainPending, row.last_created_ms);
      logger.info(
        { relayerId: row.id, from: row.next_nonce, to: chainPending },
        'relayer nonce resynced from the chain',
      );
    });
  }

  /** "nonce too high" from a node without a pool: the chain's nonces read again now, so the gap fill below sees them. */
  async function resyncAtOnce(t: Tick): Promise<void> {
    const fresh = await t.chain.nonces(t.relayer.address as Hex).catch(() => null);
    if (!fresh) return;
    logger.info(
      { relayerId: t.relayer.id, latest: fresh.latest, pending: fresh.pending },
      'nonce too high on a network without a pool: nonces read again from the chain',
    );
    await resync(t.relayer, fresh.pending);
    t.pending = fresh.pending;
  }

  /** One transaction's next step, from what the chain says about its nonce. */
  async function step(t: Tick, stored: StoredTransaction): Promise<void> {
    const r = asEvm(stored.record);
    if (r.nonce < t.latest) return moves.settle(t, stored);
    let current: StoredTransaction | null = stored;
    if (r.status === 'mined') {
      current = await moves.write(stored, {
        ...r,
        status: 'submitted',
        status_reason: 'its block left the chain (reorg); tracked again',
      });
      if (!current) return;
      logger.warn({ transactionId: r.id, hash: r.hash }, 'mined transaction reorged out; tracked again');
    }
    let c = asEvm(current.record);
    // valid_until, or 8 hours after its creation when the request gave none (the reference's default).
    if (!isNoop(c)) {
      if (evmExpiresAt(c) <= t.now) return moves.noop(t, current, 'expiry');
      // The reference's MAXIMUM_TX_ATTEMPTS: on a rollup, a transaction re-signed more than 50 times gives its nonce up.
      if (isRollup(t.network) && c.hashes.length > MAX_ROLLUP_ATTEMPTS) return moves.noop(t, current, 'attempts');
    }
    if (isWaitingAtCap(c)) {
      current = await moves.leaveWaitIfFeesFell(t, current);
      if (!current) return;
      c = asEvm(current.record);
    }
    if (c.status === 'pending') return moves.broadcast(t, current);
    // A version signed moments ago is being broadcast by the path that wrote it: only a stale one is sent from here.
    // Without a pool there is nothing to wait for (a second broadcast of it is answered "already known" at worst).
    const grace = lacksMempool(t.network) ? 0 : FAST_PATH_GRACE_MS;
    if (c.status === 'sent') return Date.parse(c.signed_at) + grace <= t.now ? moves.broadcast(t, current) : undefined;
    // Submitted. The wait doubles per version signed (the reference's backoff), except on Arbitrum (timing.ts).
    const overdue = Date.parse(c.signed_at) + resubmitTimeoutMs(t.network, c.speed, c.hashes.length) <= t.now;
    // Without a pool the node never holds anything: not mined yet, broadcast again (nonce-too-high resyncs).
    if (lacksMempool(t.network)) return moves.broadcast(t, current);
    // Not counted in the node's pending nonce: dropped, evicted, node restarted, and broadcast again; or held in a queue
    // it never executes, or swallowed by a URL, and then "accepted" / "already known" is no progress. Past the deadline
    // (the resubmit timeout, or re-broadcasts that changed nothing) it is replaced whatever the node says (stuck.ts).
    if (c.nonce >= t.pending) {
      // Only the one the chain waits on is escalated: those above it cannot be mined before it anyway. One waiting
      // at the fee cap has had its escalation (nothing higher can be signed): it is sent as it is.
      const head = c.nonce === t.pending && !isWaitingAtCap(c);
      const tooMany = idle.add(c.id, c.hash, c.hashes.length);
      if (!head || (!overdue && !tooMany) || idle.wasAtCap(c.id, c.hash)) return moves.broadcast(t, current);
      idle.clear(c.id, c.hash);
      if (await moves.escalate(t, current, tooMany && !overdue)) idle.atCap(c.id, c.hash);
      return;
    }
    if (overdue) await moves.bump(t, current);
  }

  /** Its relayer left the config: nothing can sign for its transactions. Said in a metric and a log line, again every minute. */
  async function reportUntracked(relayerId: string): Promise<{ rescheduleAt: number } | undefined> {
    const left = (await store.repos.transactions.listUnfinished(relayerId, WINDOW)).length;
    deps.observer?.untracked?.(relayerId, left);
    if (left === 0) return undefined;
    logger.error(
      { relayerId, nonFinal: left },
      'relayer no longer configured: its non-final transactions are not tracked until it is back',
    );
    return { rescheduleAt: Date.now() + 60_000 };
  }

  /** One lane's run (the relayer's own without a pool): what it found, for the lane's state, and when to run again. */
  interface LaneRun {
    next: { rescheduleAt: number } | undefined;
    active: StoredTransaction[];
    signerFailed: boolean;
  }

  const health = createLaneHealth(deps);

  const handler: JobHandler = async (job, ctx) => {
    // Read before the transactions: every nonce below this relayer row's next_nonce belongs to a committed record.
    const relayer = await store.repos.relayers.get(job.subject);
    if (!relayer || relayer.network_type !== 'evm') return reportUntracked(job.subject);
    const lanes = await relayers.lanes(relayer.id);
    if (lanes.length < 2) return (await runLane(relayer, ctx)).next;
    // A key pool: each lane in turn of its own (its nonces, its transactions), all in this one job; then its state.
    const errors: unknown[] = [];
    const runs = await Promise.all(
      lanes.map(async (lane) => {
        const row =
          lane.position === 0
            ? relayer
            : await store.repos.relayers.get(laneKey(relayer.id, lane.address, lane.position));
        if (!row) return undefined;
        const run = await runLane(row, ctx).catch((err: unknown) => void errors.push(err));
        const state = await health.update(relayer, lane, row, run ?? null).catch((err: unknown) => {
          logger.warn(
            { err, relayerId: relayer.id, lane: lane.address },
            'lane state not written; written again next run',
          );
          return lane.state;
        });
        return { next: run?.next, state };
      }),
    );
    if (errors.length > 0) throw errors[0];
    const due = runs.flatMap((r) => (r?.next ? [r.next.rescheduleAt] : []));
    // A lane out of the routing is looked at again while nothing is in flight, so that it comes back by itself.
    const out = runs.some((r) => r && r.state !== 'active') ? [Date.now() + OUT_OF_ROUTING_CHECK_MS] : [];
    // A pool with a funding key has its lanes' balances watched while idle too (drained by other means than its sends).
    const watched = lanes.some(isFundingLane) ? [Date.now() + FUNDING_WATCH_MS] : [];
    const at = [...due, ...out, ...watched];
    return at.length > 0 ? { rescheduleAt: Math.min(...at) } : undefined;
  };

  async function runLane(relayer: RelayerRow, ctx: Parameters<JobHandler>[1]): Promise<LaneRun> {
    let signerFailed = false;
    const chain = relayers.chain(relayer);
    const network = relayers.network(relayer);
    const active = await store.repos.transactions.listUnfinished(relayer.id, WINDOW);
    let head: bigint;
    let nonces: { latest: number; pending: number };
    try {
      [head, nonces] = await Promise.all([chain.blockNumber(), chain.nonces(relayer.address as Hex)]);
    } catch (err) {
      // Nothing in flight (the check at start): a node that does not answer now is no reason to retry and log.
      if (active.length === 0) {
        logger.debug(
          { relayerId: relayer.id, err },
          'relayer check skipped: no transaction in flight and the node did not answer',
        );
        return { next: undefined, active, signerFailed };
      }
      throw err;
    }
    await resync(relayer, nonces.pending);
    let fees: Promise<FeeSuggestions | null> | undefined;
    const t: Tick = {
      relayer,
      chain,
      network,
      signer: backoff(relayer.id, deps.signer(relayer)),
      head,
      latest: nonces.latest,
      pending: nonces.pending,
      now: Date.now(),
      fees: () => (fees ??= chain.fees().catch(() => null)),
      budget: { broadcasts: 64 },
      ...(await receiptReader.forRun(
        relayer.id,
        relayer.address,
        chain,
        head,
        active.some((s) => asEvm(s.record).nonce < nonces.latest),
      )),
    };
    // One transaction's failure (a lookup that timed out) does not hold back the others: it is looked at next run.
    const guarded = (s: StoredTransaction) =>
      step(t, s).catch((err: unknown) => {
        if (!isSignerFailure(err))
          return logger.warn(
            { err, transactionId: s.record.id, relayerId: relayer.id },
            'transaction check failed; looked at again next run',
          );
        signerFailed = true;
        logger.debug(
          { transactionId: s.record.id, relayerId: relayer.id },
          'transaction not re-signed (signer failing); looked at again next run',
        );
      });
    const used = active.filter((s) => asEvm(s.record).nonce < t.latest);
    const waiting = active.filter((s) => asEvm(s.record).nonce >= t.latest);
    await eachLimited(used, PARALLEL, ctx.signal, guarded);
    // A sequencer refuses a nonce above the next one: without a pool, broadcasts go out one at a time, lowest first.
    await eachLimited(waiting, lacksMempool(network) ? 1 : PARALLEL, ctx.signal, guarded);
    if (t.resyncNow) await resyncAtOnce(t);
    const top = active.length >= WINDOW ? asEvm(active[active.length - 1]!.record).nonce : relayer.next_nonce;
    const gaps = await fillNonceGaps(t, active, top, logger);
    if (active.length === 0 && gaps === 0) return { next: undefined, active, signerFailed };
    return { next: { rescheduleAt: Date.now() + checkIntervalMs(network) }, active, signerFailed };
  }

  return { handler };
}
