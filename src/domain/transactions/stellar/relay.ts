// The Stellar relay family: a send is checked and stored `pending`; the relayer's `stellar.lane` job signs, submits and
// follows its transactions one at a time (transactions/stellar/lane.ts), since each takes the account's next sequence number.
import type { NetworkConfig } from '../../../config/config.ts';
import { ValidationError } from '../../../errors.ts';
import type { StellarChains, StellarSigner } from '../../chains/stellar/ports.ts';
import type { JobHandler } from '../../jobs/scheduler.ts';
import type { Log } from '../../log.ts';
import type { Store } from '../../ports.ts';
import type { RelayerRow, StoredTransaction, TransactionsRepo } from '../../relayers/ports.ts';
import { FINAL_STATUSES, type TransactionRecord, type TransactionStatus } from '../../types.ts';
import type { RecordWriter } from '../record-writer.ts';
import type { RelayFamily } from '../family.ts';
import { onlyPending, resumeInFlight } from '../family-common.ts';
import { stellarRecordFields, type StellarBody } from './request.ts';
import { TransactionBuilder } from '@stellar/stellar-base';
import { checkUserFeePayment } from './gasless-checks.ts';
import { swapJobFor } from './token-swap.ts';
import type { StellarFeePolicy } from './fee-token.ts';
import { startNext, track, type LaneContext, type LaneStep, type StellarLanePolicy } from './lane.ts';
import { stellarApproval } from '../../signers/gate.ts';
import { relayerIdOf } from '../../relayers/lanes.ts';

export const STELLAR_JOB = 'stellar.lane';
const DEFAULT_LEDGER_MS = 5_000;
/** Steps one lane run may take before yielding its slot (each final transaction lets the next one start at once). */
const STEPS_PER_RUN = 8;

export interface StellarRelayDeps {
  chains: StellarChains;
  /** The relayer's Ed25519 signer (or a pool lane's, by its lane key); undefined for an address-only signer. */
  signer(relayerId: string): StellarSigner | undefined;
  /** A key pool's lane that sends from `from` (relayers/lanes.ts): the relayer's id for its first key or without a pool. */
  laneKeyOf?(relayerId: string, from: unknown): string;
  /** Whether the relayer has a key pool (its fund account and channel accounts each a lane with its own job). */
  isPool?(relayerId: string): boolean;
  network(relayer: RelayerRow): NetworkConfig;
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  logger: Log;
  now?: () => number;
}

/** How many of a pool lane's relayer's transactions in one status are looked through for the lane's oldest. */
const POOL_SCAN = 1_000;

/** The relayer's oldest transaction in one of `statuses` (lists are newest first); of a pool, the lane's at `from`. */
async function oldest(
  transactions: TransactionsRepo,
  relayerId: string,
  statuses: TransactionStatus[],
  from?: string,
): Promise<StoredTransaction | undefined> {
  if (from !== undefined) {
    for (const status of statuses) {
      const record = (await transactions.list(relayerId, status, POOL_SCAN, 0)).findLast((r) => r.from === from);
      const stored = record && (await transactions.find(record.id));
      if (stored && stored.record.status === status) return stored;
    }
    return undefined;
  }
  for (const status of statuses) {
    const count = await transactions.count(relayerId, status);
    if (count === 0) continue;
    const [record] = await transactions.list(relayerId, status, 1, count - 1);
    const stored = record && (await transactions.find(record.id));
    if (stored && stored.record.status === status) return stored;
  }
  return undefined;
}

/** A send's record fields, checked without the network; the relayer's max_fee policy caps what a request may bid. */
function sendFields(deps: StellarRelayDeps, relayer: RelayerRow, body: StellarBody, now: number) {
  if (!deps.signer(relayer.id))
    throw new ValidationError(
      `relayer '${relayer.id}' has an address-only signer (no key); it cannot sign transactions`,
    );
  const chain = deps.chains.stellar(relayer.network);
  const fields = stellarRecordFields(
    body,
    relayer.network,
    deps.network(relayer),
    relayer.address,
    chain.checkOperations,
    now,
  );
  const cap = (relayer.policies as { max_fee?: number } | null)?.max_fee;
  return cap != null && BigInt(fields.max_fee) > BigInt(cap) ? { ...fields, max_fee: String(cap) } : fields;
}

/**
 * A relayer whose users pay the fee in a token (fee_payment_strategy: user): a fee bump is checked (its fee payment to
 * the relayer, nothing acting for the relayer) before it is stored, so before the relayer signs anything for it.
 */
async function checkUserPays(
  deps: StellarRelayDeps,
  relayer: RelayerRow,
  fields: { fee_bump: boolean; transaction_xdr: string | null | undefined },
): Promise<void> {
  const policy = (relayer.policies ?? {}) as StellarFeePolicy;
  if (policy.fee_payment_strategy !== 'user' || !fields.fee_bump) return;
  const chain = deps.chains.stellar(relayer.network);
  await checkUserFeePayment(
    TransactionBuilder.fromXDR(fields.transaction_xdr!, chain.passphrase),
    relayer.address,
    policy,
    chain,
  );
  // Fees are being collected: the swap job exists from now on, even for swap_config given through the API (an
  // existing job keeps its earlier due time).
  try {
    const swaps = swapJobFor(relayer, Date.now());
    if (swaps) await deps.store.repos.jobs.schedule(swaps);
  } catch (err) {
    // A schedule that names no time (31 February) must not refuse the user's send; the swaps wait for a fix.
    deps.logger.warn(
      { relayerId: relayer.id, err: (err as { reason?: string }).reason ?? (err as Error).message },
      'token swap job not scheduled',
    );
  }
}

export function createStellarFamily(deps: StellarRelayDeps): RelayFamily {
  const { store, writer, logger } = deps;
  const { transactions } = store.repos;
  const now = deps.now ?? Date.now;
  const memo: LaneContext['memo'] = new Map();
  const sequences: LaneContext['sequences'] = new Map();

  const write = (stored: StoredTransaction, next: TransactionRecord) =>
    store.atomically((tx) => writer.update(tx, stored, next, 'stellar'));
  /** The lane whose job moves the record: a pool's channel account, else the relayer. */
  const laneKeyOf = (record: TransactionRecord) =>
    deps.laneKeyOf?.(record.relayer_id, record.from) ?? record.relayer_id;

  /** The job's subject's lane: a relayer, or a pool's lane key; the fund account's row and signer for a channel. */
  const laneOf = async (subject: string) => {
    const relayerId = relayerIdOf(subject);
    const row = await store.repos.relayers.get(subject);
    const fund = subject === relayerId ? row : await store.repos.relayers.get(relayerId);
    if (!row || !fund) return undefined;
    const pooled = deps.isPool?.(relayerId) ?? false;
    const fundSigner = subject === relayerId ? undefined : deps.signer(relayerId);
    return {
      relayerId,
      row,
      fund,
      from: pooled ? row.address : undefined,
      channel: fundSigner && { fund: fundSigner },
    };
  };

  const lane: JobHandler = async (job) => {
    const found = await laneOf(job.subject);
    if (!found) return;
    const { row: relayer, fund, relayerId, from, channel } = found;
    const ledgerMs = deps.network(relayer).average_blocktime_ms ?? DEFAULT_LEDGER_MS;
    for (let i = 0; i < STEPS_PER_RUN; i++) {
      const chain = deps.chains.stellar(relayer.network);
      const ctx: LaneContext = {
        chain,
        policy: (relayer.policies ?? {}) as StellarLanePolicy,
        signer: deps.signer(relayer.id),
        // A channel's transactions are the fund account's to approve: it pays their fees.
        approval: stellarApproval(chain, fund),
        ...(channel ? { channel } : {}),
        now: now(),
        pollMs: Math.max(10, Math.round(ledgerMs / 4)),
        notFoundWindowMs: Math.max(2_000, ledgerMs * 6),
        maxBackoffMs: 30_000,
        memo,
        sequences,
        write,
      };
      const inFlight = await oldest(transactions, relayerId, ['submitted', 'sent'], from);
      let step: LaneStep;
      if (inFlight) step = await track(inFlight, ctx);
      else {
        const next = await oldest(transactions, relayerId, ['pending'], from);
        if (!next) return; // nothing left: a later send schedules the lane again
        step = await startNext(next, ctx);
      }
      if (step !== 'final') return step;
    }
    return { rescheduleAt: now() };
  };

  return {
    async prepareSend(relayer, body) {
      const f = sendFields(deps, relayer, body as StellarBody, now());
      await checkUserPays(deps, relayer, f);
      return { build: (row) => ({ status: 'pending', fields: f, nonce: null, nextNonce: row.next_nonce }) };
    },
    laneNeeds(_relayer, body) {
      const b = body as StellarBody;
      const operations = b.operations !== undefined && b.operations !== null;
      return { signers: b.source_account ? [b.source_account] : [], channel: operations };
    },
    async replace(relayer, stored, body) {
      onlyPending(stored, 'stellar transactions can be replaced');
      // A pool's transaction stays on its lane (a channel's source is the channel).
      const key = deps.laneKeyOf?.(relayer.id, stored.record.from) ?? relayer.id;
      const row = key === relayer.id ? relayer : ((await store.repos.relayers.get(key)) ?? relayer);
      const f = sendFields(deps, row, body as StellarBody, now());
      await checkUserPays(deps, relayer, f);
      return { ...stored.record, ...f };
    },
    async cancel(_relayer, stored) {
      onlyPending(stored, 'transactions can be canceled');
      return { ...stored.record, status: 'canceled', status_reason: 'canceled by request' };
    },
    async schedule(tx, record) {
      if (FINAL_STATUSES.has(record.status)) return;
      await tx.jobs.schedule({ kind: STELLAR_JOB, subject: laneKeyOf(record), dueAt: now() });
    },
    afterCommit: () => undefined,
    jobs: { [STELLAR_JOB]: lane },
    async resume() {
      const lanes = new Set<string>();
      const count = await resumeInFlight(
        store,
        'stellar',
        async (_id, _relayerId, record) => void lanes.add(laneKeyOf(record)),
      );
      for (const relayerId of lanes)
        await store.repos.jobs.schedule({ kind: STELLAR_JOB, subject: relayerId, dueAt: now() });
      if (count > 0)
        logger.info({ transactions: count, relayers: lanes.size }, 'stellar transactions in flight resumed');
    },
  };
}
