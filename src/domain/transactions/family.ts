// The family-neutral seam of the transaction service: what each network family (EVM, Solana, Stellar) supplies so that
// service.ts can send, replace and cancel without knowing how a family relays. Each family lives in its own modules
// (evm-*.ts, …); its background work runs as store-backed jobs of its own kinds (`evm.*`, …).
import type { Tx } from '../ports.ts';
import type { FundsLedger, RelayerRow, StoredTransaction } from '../relayers/ports.ts';
import type { TransactionRecord, TransactionStatus } from '../types.ts';
import type { JobHandler } from '../jobs/scheduler.ts';
import { AppError } from '../../errors.ts';

/** What a family's send becomes once its network reads are done (prices, gas, balance). */
export interface PreparedSend {
  /**
   * Runs inside the store transaction that inserts the record, with the relayer's row read for update: takes the
   * nonce (if the family has one) from that row, at once, and returns the record's family fields. No store or chain
   * I/O. The fields may still be signing (a promise, the signer being a port): the service awaits a batch's
   * signatures together, so a remote signer costs the open transaction one round trip per batch, not one per send;
   * a local key answers at once.
   */
  build(relayer: RelayerRow): {
    status: TransactionStatus;
    fields: Record<string, unknown> | Promise<Record<string, unknown>>;
    nonce: number | null;
    nextNonce: number;
  };
  /**
   * For a send that holds funds (its record's `funds_reserved`): in the store transaction that takes its nonce, with
   * the relayer's funds ledger locked, the refusal when the balance cannot also cover `reserved` (what the relayer's
   * unmined sends hold, those of its batch before it included); null to accept it.
   */
  admit?(ledger: FundsLedger, reserved: bigint, cost: bigint): Error | null;
}

/** A family's relaying: the use cases' family-specific halves, the jobs that move its transactions, its start-up. */
export interface RelayFamily {
  /** Validation and network reads for a new transaction, before the store transaction (one at a time per relayer). */
  prepareSend(relayer: RelayerRow, body: unknown): Promise<PreparedSend>;
  /** The record after a replace (same row, same nonce); throws a ValidationError when `stored` cannot be replaced. */
  replace(relayer: RelayerRow, stored: StoredTransaction, body: unknown): Promise<TransactionRecord>;
  /** The record after a cancel request; throws a ValidationError when `stored` cannot be canceled. */
  cancel(relayer: RelayerRow, stored: StoredTransaction): Promise<TransactionRecord>;
  /** In the store transaction that writes `record`: schedules the jobs that move it on (nothing for a final one). */
  schedule(tx: Tx, record: TransactionRecord): Promise<void>;
  /**
   * In the store transaction that writes a batch of new sends of `relayer` (its locked row): what `schedule` does for
   * each, done once for the batch where the jobs are per relayer. Absent: `schedule` per record.
   */
  scheduleSends?(tx: Tx, relayer: RelayerRow, records: readonly TransactionRecord[]): Promise<void>;
  /** After that transaction committed (`relayer`: its row as the caller read it, saving a read): the fast path (e.g. broadcast now rather than at the job's next run). Never throws. */
  afterCommit(record: TransactionRecord, relayer?: RelayerRow): void;
  /**
   * A key pool's send (family-pool-sends.ts): the accounts that must sign it (a pool key among them takes the send),
   * and whether a Stellar channel account may be its source. Absent: any lane.
   */
  laneNeeds?(relayer: RelayerRow, body: unknown): { signers: string[]; channel: boolean };
  /** Job handlers of this family, by kind (`evm.check`); registered with the one scheduler. */
  readonly jobs: Readonly<Record<string, JobHandler>>;
  /** At start: schedules whatever resumes this family's non-final transactions (and resyncs nonces). */
  resume(): Promise<void>;
}

/** Observes every committed status change (metrics); the domain stays free of a metrics library. */
export interface TransitionObserver {
  transition(networkType: string, from: TransactionStatus | null, to: TransactionStatus): void;
  /** Every committed write of a record (a status change or not: a new hash, new fees), for the live events. */
  changed?(record: TransactionRecord, from: TransactionStatus | null): void;
  /** Non-final transactions of a relayer that nothing can move (its relayer left the config), now. */
  untracked?(relayerId: string, count: number): void;
  /** An EVM transaction started waiting at its relayer's fee cap (counted once per wait), on `network`. */
  feeCapWait?(network: string): void;
  /** A wait on the node passed its deadline and the check acted on it (stuck.ts names the causes), on `network`. */
  stuckEscalation?(network: string, cause: string): void;
}

/**
 * The family of a network type no configured network has (its code is not loaded): no relayer can be of that type, so
 * nothing reaches it; were something to, it is refused, never run half-way.
 */
export function unconfiguredFamily(networkType: string): RelayFamily {
  const refuse = async (): Promise<never> => {
    throw new AppError('NOT_SUPPORTED', { reason: `no ${networkType} network is configured` });
  };
  return {
    prepareSend: refuse,
    replace: refuse,
    cancel: refuse,
    schedule: refuse,
    afterCommit: () => {},
    jobs: {},
    resume: async () => {},
  };
}
