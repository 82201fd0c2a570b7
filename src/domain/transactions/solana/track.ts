// One step of a Solana transaction's life, run by its `solana.tx` job: send (pending/sent), then watch its signature
// (submitted → mined at `confirmed` → confirmed at `finalized`); an expired blockhash re-signs or expires it.
import { ValidationError } from '../../../errors.ts';
import type { SigningApproval, SolanaChain, SolanaSigner, SolanaTransactionError } from '../../chains/solana/ports.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';

/** Human text of a node's transaction error: `instruction 0 failed: Custom(6001)` or `InsufficientFundsForFee`. */
export function describeSolanaError(err: SolanaTransactionError): string {
  if (err.kind === 'transaction') return err.error;
  return `instruction ${err.index} failed: ${err.custom === null ? err.error : `Custom(${err.custom})`}`;
}

export interface TrackContext {
  chain: SolanaChain;
  signer: SolanaSigner | undefined;
  /** The signing gate's approval for this relayer, for a re-sign with a fresh blockhash. */
  approval: SigningApproval;
  now: number;
  /** How often a submitted transaction is looked at (about a slot). */
  pollMs: number;
  /** A transaction not seen by the node yet is sent again this often while its blockhash is valid. */
  rebroadcastMs: number;
  /** When this process last sent each signature (kept in memory: after a restart a transaction is just sent once more). */
  lastSent: Map<string, number>;
  /** Writes `next` over `stored`; null when another writer changed it first. */
  write(stored: StoredTransaction, next: TransactionRecord): Promise<StoredTransaction | null>;
}

/** What the job does next: run again at a time, or finish (the transaction is final or gone). */
export type StepResult = { rescheduleAt: number } | undefined;

const iso = (ms: number) => new Date(ms).toISOString();

function final(
  record: TransactionRecord,
  status: 'failed' | 'expired' | 'confirmed',
  reason: string | null,
  now: number,
): TransactionRecord {
  return { ...record, status, status_reason: reason, ...(status === 'confirmed' ? { confirmed_at: iso(now) } : {}) };
}

const pastValidUntil = (record: TransactionRecord, now: number) =>
  typeof record.valid_until === 'string' && Date.parse(record.valid_until) <= now;

/**
 * Re-signs with a fresh blockhash after which a transaction that still has not landed is given up (issue 40): without
 * valid_until nothing else would end it, and a network that never lands it (every URL swallowing) would be asked forever.
 * About 10 blockhash lives (10-15 minutes on mainnet), as the EVM's 10 re-broadcasts that change nothing.
 */
export const MAX_RESIGNS = 10;

/**
 * The blockhash expired before the transaction landed: the same message with a fresh blockhash, signed again, when
 * the relayer is its only signer and valid_until allows; otherwise `expired`.
 */
async function renew(stored: StoredTransaction, ctx: TrackContext): Promise<StepResult> {
  const record = stored.record;
  if (pastValidUntil(record, ctx.now))
    return done(ctx, stored, final(record, 'expired', 'valid_until passed before the transaction landed', ctx.now));
  if (!ctx.signer)
    return done(
      ctx,
      stored,
      final(
        record,
        'expired',
        'blockhash expired before the transaction landed, and the relayer has no key to re-sign it',
        ctx.now,
      ),
    );
  const resigns = ((record.signatures as string[] | undefined)?.length ?? 1) - 1;
  if (resigns >= MAX_RESIGNS) {
    return done(
      ctx,
      stored,
      final(
        record,
        'expired',
        `blockhash expired before the transaction landed, ${resigns + 1} times (re-signed ${resigns} times): given up, no RPC URL got it landed`,
        ctx.now,
      ),
    );
  }
  let resigned;
  try {
    resigned = await ctx.chain.resign(record.transaction as string, ctx.signer, ctx.approval);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return done(
      ctx,
      stored,
      final(record, 'expired', `blockhash expired before the transaction landed; ${err.reason}`, ctx.now),
    );
  }
  const next: TransactionRecord = {
    ...record,
    status: 'pending',
    status_reason: 'blockhash expired before the transaction landed; re-signed with a fresh blockhash',
    transaction: resigned.transaction,
    signature: resigned.signature,
    signatures: [...((record.signatures as string[] | undefined) ?? []), resigned.signature],
    blockhash: resigned.blockhash,
    last_valid_block_height: resigned.lastValidBlockHeight?.toString() ?? null,
  };
  await ctx.write(stored, next);
  // Sent again at once (or, after a lost race, looked at again).
  return { rescheduleAt: ctx.now };
}

async function done(ctx: TrackContext, stored: StoredTransaction, next: TransactionRecord): Promise<StepResult> {
  // A lost race (another writer, e.g. a cancel) is looked at again at once.
  return (await ctx.write(stored, next)) ? undefined : { rescheduleAt: ctx.now };
}

/** pending → sent (so a cancel can no longer race the send) → sendTransaction → submitted, failed or re-signed. */
export async function sendStep(stored: StoredTransaction, ctx: TrackContext): Promise<StepResult> {
  let current: StoredTransaction | null = stored;
  if (pastValidUntil(stored.record, ctx.now))
    return done(
      ctx,
      stored,
      final(stored.record, 'expired', 'valid_until passed before the transaction was sent', ctx.now),
    );
  if (stored.record.status === 'pending') {
    current = await ctx.write(stored, { ...stored.record, status: 'sent', status_reason: null });
    if (!current) return { rescheduleAt: ctx.now };
  }
  const record = current.record;
  const outcome = await ctx.chain.send(record.transaction as string);
  if (outcome.status === 'unavailable') throw new Error(`sendTransaction: ${outcome.message}`);
  if (outcome.status === 'submitted') {
    ctx.lastSent.set(outcome.signature, ctx.now);
    const next = {
      ...record,
      status: 'submitted' as const,
      status_reason: null,
      sent_at: (record.sent_at as string | null) ?? iso(ctx.now),
    };
    return (await ctx.write(current, next)) ? { rescheduleAt: ctx.now + ctx.pollMs } : { rescheduleAt: ctx.now };
  }
  if (outcome.reason === 'blockhash_not_found') return renew(current, ctx);
  const reason = outcome.error
    ? `${outcome.reason === 'program_error' ? 'program error' : 'refused'}: ${describeSolanaError(outcome.error)}`
    : outcome.message;
  return done(ctx, current, final(record, 'failed', reason, ctx.now));
}

/** submitted/mined: the signature's status; unknown past its blockhash's life → renew. */
export async function watchStep(stored: StoredTransaction, ctx: TrackContext): Promise<StepResult> {
  const record = stored.record;
  const signature = record.signature as string;
  const [status] = await ctx.chain.signatureStatuses([signature]);
  if (status) {
    if (status.err)
      return done(
        ctx,
        stored,
        final(record, 'failed', `transaction failed on chain: ${describeSolanaError(status.err)}`, ctx.now),
      );
    if (status.commitment === 'finalized') return done(ctx, stored, final(record, 'confirmed', null, ctx.now));
    if (status.commitment === 'confirmed' && record.status !== 'mined') {
      const next = { ...record, status: 'mined' as const, slot: status.slot.toString() };
      return (await ctx.write(stored, next)) ? { rescheduleAt: ctx.now + ctx.pollMs } : { rescheduleAt: ctx.now };
    }
    return { rescheduleAt: ctx.now + ctx.pollMs };
  }
  if (await ctx.chain.isBlockhashValid(record.blockhash as string)) {
    // Not seen yet (dropped by a busy leader, or still on its way): sent again while it can still land.
    if (ctx.now - (ctx.lastSent.get(signature) ?? 0) >= ctx.rebroadcastMs) {
      const outcome = await ctx.chain.send(record.transaction as string);
      if (outcome.status === 'rejected' && outcome.reason !== 'blockhash_not_found') {
        return done(
          ctx,
          stored,
          final(
            record,
            'failed',
            outcome.error ? `refused: ${describeSolanaError(outcome.error)}` : outcome.message,
            ctx.now,
          ),
        );
      }
      ctx.lastSent.set(signature, ctx.now);
    }
    return { rescheduleAt: ctx.now + ctx.pollMs };
  }
  // The blockhash is gone: if the status is still unknown now, the transaction can never land.
  const [again] = await ctx.chain.signatureStatuses([signature]);
  if (again) return { rescheduleAt: ctx.now };
  // A URL that accepted it as new while its network never had it is taken out of the submissions (issue 40).
  await ctx.chain.sendDidNotLand?.(signature).catch(() => 0);
  return renew(stored, ctx);
}
