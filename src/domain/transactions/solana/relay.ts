// The Solana relay family: a send is signed by the relayer as fee payer (policies checked) and stored `pending`;
// its `solana.tx` job sends it and follows its signature to `finalized` (transactions/solana/track.ts).
import type { NetworkConfig } from '../../../config/config.ts';
import { AppError, ValidationError } from '../../../errors.ts';
import type { SignedSolanaTransaction, SolanaChains, SolanaSigner } from '../../chains/solana/ports.ts';
import type { JobHandler } from '../../jobs/scheduler.ts';
import type { Log } from '../../log.ts';
import type { Store } from '../../ports.ts';
import type { RelayerRow, StoredTransaction } from '../../relayers/ports.ts';
import { FINAL_STATUSES, type TransactionRecord } from '../../types.ts';
import type { RecordWriter } from '../record-writer.ts';
import type { RelayFamily } from '../family.ts';
import { parseSolanaRequest, type SolanaBody } from './request.ts';
import { solanaApproval, solanaFeeOf } from '../../signers/gate.ts';
import { sendStep, watchStep, type TrackContext } from './track.ts';
import { onlyPending, resumeInFlight } from '../family-common.ts';
import { feePolicy, userPays } from '../../chains/solana/fee-policy.ts';
import { checkUserPayment } from '../../chains/solana/user-fee.ts';
import { ensureSwapJob, isOwnSend } from './token-swap.ts';

/** The reference's text: where users pay, the relayer only relays a transaction already paying it. */
const USER_PAYS_NEEDS_TRANSACTION =
  'User-paid fees require a pre-built transaction. Use prepareTransaction RPC method first to build the transaction from instructions.';

export const SOLANA_JOB = 'solana.tx';
const DEFAULT_SLOT_MS = 400;

export interface SolanaRelayDeps {
  chains: SolanaChains;
  /** The relayer's Ed25519 signer (or a pool lane's, by its lane key); undefined for an address-only signer. */
  signer(relayerId: string): SolanaSigner | undefined;
  /** A key pool's lane that signs from `from` (relayers/lanes.ts): the relayer's id for its first key or without a pool. */
  laneKeyOf?(relayerId: string, from: unknown): string;
  network(relayer: RelayerRow): NetworkConfig;
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  logger: Log;
  now?: () => number;
}

function requireSigner(deps: SolanaRelayDeps, relayer: RelayerRow): SolanaSigner {
  const signer = deps.signer(relayer.id);
  if (!signer)
    throw new ValidationError(
      `relayer '${relayer.id}' has an address-only signer (no key); it cannot sign transactions`,
    );
  return signer;
}

/** Checks the relayer's policies and balance, then signs for it; the record's Solana fields. */
async function prepareFields(
  deps: SolanaRelayDeps,
  relayer: RelayerRow,
  body: SolanaBody,
): Promise<Record<string, unknown>> {
  const request = parseSolanaRequest(body, (deps.now ?? Date.now)());
  const signer = requireSigner(deps, relayer);
  const chain = deps.chains.solana(relayer.network);
  const fees = feePolicy(relayer);
  // The relayer's own swaps (token-swap.ts) pay nobody: every other send where users pay must pay the relayer.
  if (userPays(fees) && !isOwnSend(body)) {
    // Users pay in tokens: the transaction must pay the relayer, under the policies, before the signer is called.
    if (request.form !== 'transaction') throw new ValidationError(USER_PAYS_NEEDS_TRANSACTION);
    await checkUserPayment({ chain, relayer, policy: fees }, request.transaction);
    await ensureSwapJob(deps.store.repos.jobs, relayer, (deps.now ?? Date.now)());
  }
  // The balance is read while the message is built; the signing gate checks policies, balance and a simulation.
  const balance = chain.balance(relayer.address);
  balance.catch(() => undefined); // read again by the gate; a build that fails first leaves it unawaited
  const approval = solanaApproval(chain, relayer, { balance });
  const signed =
    request.form === 'transaction'
      ? await chain.signTransaction(request.transaction, signer, approval)
      : await chain.buildAndSign(request.instructions, signer, approval);
  return recordFields(
    relayer,
    signed,
    solanaFeeOf(signed),
    request.form === 'instructions' ? request.instructions : null,
    request.validUntil,
  );
}

function recordFields(
  relayer: RelayerRow,
  signed: SignedSolanaTransaction,
  fee: bigint,
  instructions: unknown,
  validUntil: string | null,
) {
  return {
    from: relayer.address,
    fee_payer: signed.feePayer,
    transaction: signed.transaction,
    signature: signed.signature,
    signatures: [signed.signature],
    ...(instructions ? { instructions } : {}),
    blockhash: signed.blockhash,
    last_valid_block_height: signed.lastValidBlockHeight?.toString() ?? null,
    fee: fee.toString(),
    valid_until: validUntil,
  };
}

export function createSolanaFamily(deps: SolanaRelayDeps): RelayFamily {
  const { store, writer, logger } = deps;
  const now = deps.now ?? Date.now;
  const lastSent = new Map<string, number>();

  const write = (stored: StoredTransaction, next: TransactionRecord) =>
    store.atomically((tx) => writer.update(tx, stored, next, 'solana'));
  /** The row that signs `stored`: a pool's fee payer signs (and is approved for) its own transactions only. */
  const signingRow = async (relayer: RelayerRow, stored: StoredTransaction): Promise<RelayerRow> => {
    const key = deps.laneKeyOf?.(relayer.id, stored.record.from) ?? relayer.id;
    return key === relayer.id ? relayer : ((await store.repos.relayers.get(key)) ?? relayer);
  };

  const step: JobHandler = async (job) => {
    const stored = await store.repos.transactions.find(job.subject);
    if (!stored || FINAL_STATUSES.has(stored.record.status)) return;
    const relayer = await store.repos.relayers.get(stored.record.relayer_id);
    if (!relayer)
      throw new AppError('INTERNAL', {
        reason: `relayer '${stored.record.relayer_id}' of transaction '${stored.record.id}' is not configured`,
      });
    const slotMs = deps.network(relayer).average_blocktime_ms ?? DEFAULT_SLOT_MS;
    const chain = deps.chains.solana(relayer.network);
    const signing = await signingRow(relayer, stored);
    const ctx: TrackContext = {
      chain,
      signer: deps.signer(signing.id),
      approval: solanaApproval(chain, signing),
      now: now(),
      pollMs: slotMs,
      rebroadcastMs: Math.max(2_000, slotMs * 5),
      lastSent,
      write,
    };
    const watching = stored.record.status === 'submitted' || stored.record.status === 'mined';
    const result = watching ? await watchStep(stored, ctx) : await sendStep(stored, ctx);
    if (!result) for (const s of (stored.record.signatures as string[] | undefined) ?? []) lastSent.delete(s);
    return result;
  };

  return {
    async prepareSend(relayer, body) {
      const fields = await prepareFields(deps, relayer, body as SolanaBody);
      return { build: (row) => ({ status: 'pending', fields, nonce: null, nextNonce: row.next_nonce }) };
    },
    laneNeeds(relayer, body) {
      const b = body as SolanaBody;
      if (b.transaction !== undefined) {
        try {
          return { signers: [deps.chains.solana(relayer.network).inspect(b.transaction).feePayer], channel: false };
        } catch {
          return { signers: [], channel: false }; // refused with its reason where it is signed
        }
      }
      const signers = (b.instructions ?? []).flatMap((i) => i.accounts.filter((a) => a.is_signer).map((a) => a.pubkey));
      return { signers, channel: false };
    },
    async replace(relayer, stored, body) {
      onlyPending(stored, 'solana transactions can be replaced');
      const fields = await prepareFields(deps, await signingRow(relayer, stored), body as SolanaBody);
      return { ...stored.record, instructions: undefined, ...fields };
    },
    async cancel(_relayer, stored) {
      onlyPending(stored, 'transactions can be canceled');
      return { ...stored.record, status: 'canceled', status_reason: 'canceled by request' };
    },
    async schedule(tx, record) {
      if (FINAL_STATUSES.has(record.status)) return;
      await tx.jobs.schedule({ kind: SOLANA_JOB, subject: record.id, dueAt: now() });
    },
    afterCommit: () => undefined,
    jobs: { [SOLANA_JOB]: step },
    async resume() {
      const scheduled = await resumeInFlight(store, 'solana', (id) =>
        store.repos.jobs.schedule({ kind: SOLANA_JOB, subject: id, dueAt: now() }),
      );
      if (scheduled > 0) logger.info({ transactions: scheduled }, 'solana transactions in flight resumed');
    },
  };
}
