// One Stellar relayer's lane: its transactions go out one at a time, oldest first, because each takes the account's next
// sequence number from the network (and stellar-core queues one transaction per source account). A step signs the
// next pending one (sent), submits it (submitted) and follows it with getTransaction to confirmed, failed or expired.
import { ValidationError } from '../../../errors.ts';
import type {
  SignedStellarTransaction,
  StellarChain,
  StellarResultCodes,
  StellarSigner,
  StellarSigningApproval,
  StellarSubmitOutcome,
} from '../../chains/stellar/ports.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import type { StellarBody } from './request.ts';

/** The reference's Stellar policy fields the lane applies (max_fee is applied at the send). */
export interface StellarLanePolicy {
  /** Stroops the relayer's account keeps after the fee. */
  min_balance?: number | string | null;
  /** Validity of a transaction built from operations without valid_until (the adapter's default otherwise: 2 min). */
  timeout_seconds?: number | null;
}

export interface LaneContext {
  chain: StellarChain;
  policy: StellarLanePolicy;
  signer: StellarSigner | undefined;
  /** The signing gate's approval for this relayer. */
  approval: StellarSigningApproval;
  now: number;
  /** How often a submitted transaction is looked at (a fraction of a ledger). */
  pollMs: number;
  /** A submitted transaction the node still does not know after this long is submitted again. */
  notFoundWindowMs: number;
  /** Longest wait between TRY_AGAIN_LATER retries. */
  maxBackoffMs: number;
  /** Per transaction hash, kept in memory (a restart only means one more submit): last submit, busy answers, resyncs. */
  memo: Map<string, { submittedAt: number; busy: number; resyncs: number }>;
  /**
   * The relayer's next sequence number once one of its transactions landed (it took the one before), so the next
   * transaction needs no account read; absent (after a restart, a refusal or tx_bad_seq) it is read from the network.
   */
  sequences: Map<string, bigint>;
  write(stored: StoredTransaction, next: TransactionRecord): Promise<StoredTransaction | null>;
  /**
   * A key pool's channel account lane (issue 44): the signer is the channel (the transaction's source and sequence),
   * `fund` the pool's first key, whose account the operations act for and which pays the fee by a fee bump.
   */
  channel?: { fund: StellarSigner };
}

/** `final`: the transaction reached a final state (the lane moves on); otherwise when to look again. */
export type LaneStep = 'final' | { rescheduleAt: number };

const MAX_RESYNCS = 3;
const iso = (ms: number) => new Date(ms).toISOString();

function describeResult(result: StellarResultCodes): string {
  const inner = result.innerCode ? ` (inner: ${result.innerCode})` : '';
  const ops = result.opCodes.length ? `: ${result.opCodes.join(', ')}` : '';
  return `${result.code}${inner}${ops}`;
}

function finalRecord(
  record: TransactionRecord,
  status: 'confirmed' | 'failed' | 'expired',
  reason: string | null,
  now: number,
  extra: Record<string, unknown> = {},
): TransactionRecord {
  return {
    ...record,
    ...extra,
    status,
    status_reason: reason,
    ...(status === 'confirmed' ? { confirmed_at: iso(now) } : {}),
  };
}

async function settle(ctx: LaneContext, stored: StoredTransaction, next: TransactionRecord): Promise<LaneStep> {
  // Lost to another writer (a cancel of a pending one): looked at again at once.
  return (await ctx.write(stored, next)) ? 'final' : { rescheduleAt: ctx.now };
}

const pastValidUntil = (record: TransactionRecord, now: number) =>
  typeof record.valid_until === 'string' && Date.parse(record.valid_until) < now;

/** Builds or signs the record's transaction with the account's sequence from the network. */
function sign(
  ctx: LaneContext,
  record: TransactionRecord,
  signer: StellarSigner,
  resign: boolean,
): Promise<SignedStellarTransaction> {
  const body = record as unknown as StellarBody & { transaction_xdr: string | null };
  const maxFee = BigInt(record.max_fee as string);
  if (body.fee_bump) return ctx.chain.feeBump(body.transaction_xdr!, signer, { maxFee }, ctx.approval);
  if (ctx.channel && body.operations) return signOnChannel(ctx, ctx.channel.fund, body, signer, resign);
  // Used once: if this transaction does not land, the next one reads the account again.
  const sequence = resign ? undefined : ctx.sequences.get(signer.address);
  ctx.sequences.delete(signer.address);
  const known = sequence === undefined ? {} : { sequence };
  if (body.operations) {
    const validUntil = validUntilOf(ctx, body);
    return ctx.chain.buildAndSign(
      {
        operations: body.operations,
        memo: body.memo ?? null,
        source_account: body.source_account ?? null,
        validUntil,
        maxFee,
        ...known,
      },
      signer,
      ctx.approval,
    );
  }
  return ctx.chain.signXdr(body.transaction_xdr!, signer, { maxFee, resign, ...known }, ctx.approval);
}

/** The transaction's upper time bound: the send's valid_until, else the policy's timeout_seconds from now, else none. */
function validUntilOf(ctx: LaneContext, body: StellarBody): Date | null {
  const timeout = ctx.policy.timeout_seconds;
  if (body.valid_until) return new Date(body.valid_until);
  return timeout ? new Date(ctx.now + timeout * 1000) : null;
}

/**
 * A channel account's transaction: its source and sequence the channel's, its operations the fund account's (signed
 * by both), wrapped in a fee bump the fund account pays and signs. The inner bid leaves the bump room within max_fee
 * (a fee bump bids for one operation more, CAP-15); the channel pays nothing.
 */
async function signOnChannel(
  ctx: LaneContext,
  fund: StellarSigner,
  body: StellarBody,
  channel: StellarSigner,
  resign: boolean,
): Promise<SignedStellarTransaction> {
  const maxFee = BigInt(body.max_fee as string | number);
  const ops = BigInt(body.operations!.length);
  const sequence = resign ? undefined : ctx.sequences.get(channel.address);
  ctx.sequences.delete(channel.address);
  const validUntil = validUntilOf(ctx, body);
  const inner = await ctx.chain.buildAndSign(
    {
      operations: body.operations!,
      memo: body.memo ?? null,
      source_account: channel.address,
      operationsSource: fund.address,
      validUntil,
      maxFee: (maxFee * ops) / (ops + 1n),
      ...(sequence === undefined ? {} : { sequence }),
    },
    channel,
    ctx.approval,
  );
  const both = await ctx.chain.signEnvelope(inner.envelopeXdr, fund, 'transaction_xdr', ctx.approval);
  return ctx.chain.feeBump(both.envelopeXdr, fund, { maxFee }, ctx.approval);
}

function signedFields(signed: SignedStellarTransaction) {
  return {
    hash: signed.hash,
    transaction_xdr: signed.envelopeXdr,
    fee: signed.fee.toString(),
    sequence_number: signed.sequence.toString(),
    valid_until: signed.validUntil ? signed.validUntil.toISOString() : null,
  };
}

/** With a `min_balance` policy: the relayer's account must keep it after paying up to max_fee (the reference's text). */
async function checkMinBalance(ctx: LaneContext, record: TransactionRecord): Promise<void> {
  if (ctx.policy.min_balance == null) return;
  // A channel's fee is the fund account's.
  const account = await ctx.chain.account(ctx.channel?.fund.address ?? (record.from as string));
  const available = account?.balance ?? 0n;
  const fee = BigInt(record.max_fee as string);
  const required = fee + BigInt(ctx.policy.min_balance);
  if (available < required) {
    throw new ValidationError(
      `Insufficient relayer balance. Required: ${required}, Available: ${available}, Fee: ${fee}, Min balance: ${ctx.policy.min_balance}`,
    );
  }
}

/** pending → sent (signed, hash and envelope recorded before anything leaves) → submitted. */
export async function startNext(stored: StoredTransaction, ctx: LaneContext): Promise<LaneStep> {
  const record = stored.record;
  if (pastValidUntil(record, ctx.now))
    return settle(
      ctx,
      stored,
      finalRecord(record, 'expired', 'valid_until passed before the transaction was sent', ctx.now),
    );
  if (!ctx.signer)
    return settle(
      ctx,
      stored,
      finalRecord(record, 'failed', `the relayer has an address-only signer (no key); it cannot sign`, ctx.now),
    );
  let signed: SignedStellarTransaction;
  try {
    await checkMinBalance(ctx, record);
    signed = await sign(ctx, record, ctx.signer, false);
  } catch (err) {
    if (err instanceof ValidationError) return settle(ctx, stored, finalRecord(record, 'failed', err.reason, ctx.now));
    throw err;
  }
  const sent = await ctx.write(stored, { ...record, ...signedFields(signed), status: 'sent', status_reason: null });
  if (!sent) return { rescheduleAt: ctx.now };
  return submit(sent, ctx);
}

/** tx_bad_seq: the account's sequence moved (another sender): sign again with the network's, when the relayer set it. */
async function resync(
  stored: StoredTransaction,
  ctx: LaneContext,
  outcome: StellarSubmitOutcome & { status: 'ERROR' },
): Promise<LaneStep> {
  const record = stored.record;
  const state = ctx.memo.get(record.hash as string) ?? { submittedAt: 0, busy: 0, resyncs: 0 };
  if (record.fee_bump || !ctx.signer || state.resyncs >= MAX_RESYNCS) {
    const why = record.fee_bump
      ? "the inner transaction's sequence number is not the account's next one"
      : 'the sequence number kept moving';
    return settle(ctx, stored, finalRecord(record, 'failed', `${describeResult(outcome.result)}: ${why}`, ctx.now));
  }
  let signed: SignedStellarTransaction;
  try {
    signed = await sign(ctx, record, ctx.signer, true);
  } catch (err) {
    if (err instanceof ValidationError) return settle(ctx, stored, finalRecord(record, 'failed', err.reason, ctx.now));
    throw err;
  }
  ctx.memo.set(signed.hash, { submittedAt: 0, busy: 0, resyncs: state.resyncs + 1 });
  const reason = `tx_bad_seq: sequence number resynced from the network (${signed.sequence})`;
  const next = await ctx.write(stored, { ...record, ...signedFields(signed), status: 'sent', status_reason: reason });
  return next ? submit(next, ctx) : { rescheduleAt: ctx.now };
}

/** sendTransaction of the recorded envelope and what its answer means. */
async function submit(stored: StoredTransaction, ctx: LaneContext): Promise<LaneStep> {
  const record = stored.record;
  const hash = record.hash as string;
  const state = ctx.memo.get(hash) ?? { submittedAt: 0, busy: 0, resyncs: 0 };
  ctx.memo.set(hash, state);
  const outcome = await ctx.chain.submit(record.transaction_xdr as string);
  if (outcome.status === 'unavailable') throw new Error(`sendTransaction: ${outcome.message}`);
  if (outcome.status === 'TRY_AGAIN_LATER') {
    // The node is busy (or still holds another transaction of this account): later, with backoff.
    state.busy += 1;
    return { rescheduleAt: ctx.now + Math.min(ctx.maxBackoffMs, ctx.pollMs * 2 ** Math.min(state.busy, 16)) };
  }
  if (outcome.status === 'ERROR') {
    if (outcome.result.code === 'tx_bad_seq') return resync(stored, ctx, outcome);
    if (outcome.result.code === 'tx_too_late')
      return settle(
        ctx,
        stored,
        finalRecord(record, 'expired', 'valid_until passed before the transaction landed (tx_too_late)', ctx.now),
      );
    return settle(
      ctx,
      stored,
      finalRecord(record, 'failed', describeResult(outcome.result), ctx.now, {
        transaction_result_xdr: outcome.errorResultXdr,
      }),
    );
  }
  state.submittedAt = ctx.now;
  state.busy = 0;
  if (record.status === 'submitted') return { rescheduleAt: ctx.now + ctx.pollMs };
  const next = await ctx.write(stored, {
    ...record,
    status: 'submitted',
    sent_at: (record.sent_at as string | null) ?? iso(ctx.now),
  });
  return { rescheduleAt: next ? ctx.now + ctx.pollMs : ctx.now };
}

/** sent/submitted: getTransaction decides; a transaction the node does not know is submitted (again) in time. */
export async function track(stored: StoredTransaction, ctx: LaneContext): Promise<LaneStep> {
  const record = stored.record;
  const hash = record.hash as string;
  const status = await ctx.chain.transaction(hash);
  // Landed (either way): its sequence number is taken, the next one follows.
  if (status.status !== 'NOT_FOUND' && !record.fee_bump)
    ctx.sequences.set(record.from as string, BigInt(record.sequence_number as string) + 1n);
  if (status.status === 'SUCCESS') {
    ctx.memo.delete(hash);
    return settle(
      ctx,
      stored,
      finalRecord(record, 'confirmed', null, ctx.now, {
        fee_charged: status.feeCharged.toString(),
        ledger: status.ledger,
        transaction_result_xdr: status.resultXdr,
      }),
    );
  }
  if (status.status === 'FAILED') {
    ctx.memo.delete(hash);
    const extra = {
      fee_charged: status.feeCharged.toString(),
      ledger: status.ledger,
      transaction_result_xdr: status.resultXdr,
    };
    return settle(ctx, stored, finalRecord(record, 'failed', describeResult(status.result), ctx.now, extra));
  }
  if (record.status === 'sent') return submit(stored, ctx);
  const state = ctx.memo.get(hash);
  // Issue 40: accepted again after its max_time (an honest node answers tx_too_late), while a ledger closed after it
  // holds it nowhere: no later ledger can include it, whatever a node that keeps answering PENDING says.
  const bound = typeof record.valid_until === 'string' ? Date.parse(record.valid_until) : NaN;
  const closedAfter = (status.latestLedgerCloseTime ?? 0) * 1000 > bound;
  // No ledger can include it any more: a URL that accepted it as PENDING while its network never had it is taken out
  // of the submissions (the others deliver meanwhile).
  if (closedAfter) await ctx.chain.submitDidNotLand?.(hash).catch(() => 0);
  if ((state?.submittedAt ?? 0) > bound && closedAfter) {
    ctx.memo.delete(hash);
    return settle(
      ctx,
      stored,
      finalRecord(
        record,
        'expired',
        'valid_until passed: a node accepted it after that, but no ledger since included it',
        ctx.now,
      ),
    );
  }
  const lastSubmit = state?.submittedAt || Date.parse(record.sent_at as string);
  // Past its time bounds it can no longer land: one more submit gets the node's tx_too_late (or it lands after all).
  const lapsed = pastValidUntil(record, ctx.now);
  if (lapsed || ctx.now - lastSubmit >= ctx.notFoundWindowMs) return submit(stored, ctx);
  return { rescheduleAt: ctx.now + ctx.pollMs };
}
