// Transaction use cases: send, get, list, replace and cancel. Each state change is one store transaction with its
// event and the jobs that move it on; the network family's half (pricing, signing, relaying) is its RelayFamily.
import { AppError, NotFoundError } from '../../errors.ts';
import type {
  DeletePendingResult,
  NetworkType,
  Page,
  SentTransaction,
  TransactionRecord,
  TransactionStatus,
} from '../types.ts';
import type { RelayerRow, StoredTransaction } from '../relayers/ports.ts';
import type { Store } from '../ports.ts';
import type { RelayerService } from '../relayers/service.ts';
import type { KeyedLock } from '../relayers/keyed-lock.ts';
import type { PreparedSend, RelayFamily } from './family.ts';
import type { RecordWriter } from './record-writer.ts';
import type { EvmBody } from './evm/transaction.ts';
import type { SolanaBody } from './solana/request.ts';
import type { StellarBody } from './stellar/request.ts';
import { createPendingCancel } from './pending-cancel.ts';
import { createSendWriter, refuseInactive, RelayerChangedError } from './send-writer.ts';
import { sameSettings } from '../relayers/row-cache.ts';
import { createIdempotentSends, type IdempotencyClaimOf } from '../idempotency/sends.ts';
import type { Log } from '../log.ts';
import { createLaneRouter, LaneFullError, noLaneError } from '../relayers/lane-routing.ts';
import type { FamilyLanes } from '../relayers/family-lanes.ts';
import { createFamilyPoolSends } from './family-pool-sends.ts';
import { relayerIdOf } from '../relayers/lanes.ts';

/** What makes a pool's send try its next lane (the lane's funds, signer or limit), as said in the answer; null otherwise. */
function laneRefusal(err: unknown): { text: string; funds: boolean } | null {
  if (err instanceof LaneFullError) return { text: 'its max_pending_per_key was reached', funds: false };
  if (!(err instanceof AppError)) return null;
  if (err.code === 'INSUFFICIENT_BALANCE')
    return { text: err.reason.replace(/ \(relayer '[^']*'; .*\)$/, ''), funds: true };
  if (err.code === 'SIGNER_UNAVAILABLE') return { text: 'its signer did not sign', funds: false };
  return null;
}

export type TransactionBody = EvmBody | SolanaBody | StellarBody;

export interface TransactionService {
  /** With an idempotency key: sent once per key and request (docs/transactions.md, "Idempotency keys"). */
  send(relayer: RelayerRow, body: TransactionBody, idempotencyKey?: string): Promise<SentTransaction>;
  get(relayer: RelayerRow, id: string): Promise<TransactionRecord>;
  list(
    relayer: RelayerRow,
    page: number,
    perPage: number,
    status?: TransactionStatus,
  ): Promise<Page<TransactionRecord>>;
  replace(relayer: RelayerRow, id: string, body: TransactionBody): Promise<TransactionRecord>;
  cancel(relayer: RelayerRow, id: string): Promise<TransactionRecord>;
  /** The reference's by-nonce lookup: EVM relayers only (501 otherwise, as the reference). */
  getByNonce(relayer: RelayerRow, nonce: bigint): Promise<TransactionRecord>;
  /** Cancels every pending, sent or submitted transaction of the relayer, each through `cancel`. */
  cancelPending(relayer: RelayerRow): Promise<DeletePendingResult>;
  /**
   * A send of the service's own from one lane of a pool (its row by lane key, not routed), `fields` added to its
   * record: a funding key's top-up (evm/lane-top-up.ts).
   */
  sendFromLane(lane: RelayerRow, body: TransactionBody, fields: Record<string, unknown>): Promise<TransactionRecord>;
}

/** The send's record with `fields` added (our extension fields of a send the service makes itself). */
function withFields(prepared: PreparedSend, fields: Record<string, unknown> | undefined): PreparedSend {
  if (!fields) return prepared;
  return {
    ...prepared,
    build(row) {
      const built = prepared.build(row);
      return { ...built, fields: Promise.resolve(built.fields).then((f) => ({ ...f, ...fields })) };
    },
  };
}

export function createTransactionService(deps: {
  relayers: RelayerService;
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  families: Record<NetworkType, RelayFamily>;
  lock: KeyedLock;
  logger?: Log;
  /** A key pool's lane took a send (metrics). */
  laneSent?: ((relayerId: string, address: string) => void) | undefined;
  /** Solana and Stellar pools: their lanes' pending counts and states (relayers/family-lanes.ts). */
  familyLanes?: { pending(relayerId: string): Promise<Record<string, number>>; health: FamilyLanes } | undefined;
}): TransactionService {
  const { relayers, writer, families, lock } = deps;
  const { repos, atomically } = deps.store;

  const notFound = (relayer: RelayerRow, id: string) =>
    new NotFoundError('NOT_FOUND', { reason: `transaction '${id}' not found for relayer '${relayer.id}'` });
  const stored = async (relayer: RelayerRow, id: string) => {
    const found = await repos.transactions.get(relayer.id, id);
    if (!found) throw notFound(relayer, id);
    return found;
  };

  /**
   * Reads the record, lets the family change it (replace, cancel) and writes the change with its event and jobs, then
   * lets the family act on it. Background work (a broadcast answered, a receipt found) may write the record in
   * between: the change is then worked out again from the newer record.
   */
  async function change(
    relayer: RelayerRow,
    id: string,
    fn: (previous: StoredTransaction) => Promise<TransactionRecord>,
  ): Promise<TransactionRecord> {
    const family = families[relayer.network_type];
    for (let attempt = 1; ; attempt++) {
      const previous = await stored(relayer, id);
      const record = await fn(previous);
      // The record as written (the writer adds what it holds of the relayer's funds).
      const written = await atomically(async (tx) => {
        const done = await writer.update(tx, previous, record, relayer.network_type);
        if (!done) return null;
        await family.schedule(tx, done.record);
        return done.record;
      });
      if (written) {
        family.afterCommit(written, relayer);
        return written;
      }
      if (attempt === 3)
        throw new AppError('INTERNAL', { reason: `transaction '${id}' was changed by another writer; retry` });
    }
  }

  const cancel = (relayer: RelayerRow, id: string) =>
    lock.run(relayer.id, () =>
      change(relayer, id, (previous) => families[relayer.network_type].cancel(relayer, previous)),
    );

  const writeSends = createSendWriter({ atomically, rows: relayers.rows, writer, families });
  const keyed = createIdempotentSends({
    keys: repos.idempotency,
    transactions: repos.transactions,
    logger: deps.logger,
  });

  /**
   * A send prepared with `relayer`, possibly a held row (row-cache.ts): a refusal, or a batch that found the row
   * changed, is worked out again with the store's row when its settings differ (paused, policies: another instance's
   * change applies at once, both ways).
   */
  async function sendOn(
    relayer: RelayerRow,
    body: TransactionBody,
    idempotency?: IdempotencyClaimOf,
    maxPending?: number,
    fields?: Record<string, unknown>,
  ): Promise<TransactionRecord> {
    const family = families[relayer.network_type];
    for (let attempt = 1; ; attempt++) {
      let record: TransactionRecord;
      let writing = false;
      try {
        refuseInactive(relayer);
        // Network reads (prices, gas estimate, balance) run concurrently, so their round trips overlap (the funds guard
        // shares one balance read per relayer); sends prepared meanwhile queue up for the next batched write below.
        const prepared = withFields(await family.prepareSend(relayer, body), fields);
        writing = true;
        const lane = maxPending === undefined ? {} : { maxPending };
        record = await lock.batch(
          relayer.id,
          { relayerId: relayer.id, relayer, prepared, ...(idempotency ? { idempotency } : {}), ...lane },
          writeSends,
        );
      } catch (err) {
        // Only a refusal is worked out again: a store failure while writing may have committed (never sent twice).
        if (writing && !(err instanceof AppError) && !(err instanceof RelayerChangedError)) throw err;
        // A read that fails (the relayer deleted, the store down) leaves the send's own error to answer; so does a
        // relayer now of another network type (deleted and created again), whose body was checked for the old one.
        const current = attempt < 3 ? await relayers.require(relayer.id).catch(() => relayer) : relayer;
        if (sameSettings(current, relayer) || current.network_type !== relayer.network_type) {
          if (err instanceof RelayerChangedError)
            throw new AppError('INTERNAL', {
              reason: `relayer '${relayer.id}' kept changing while the send was prepared; retry`,
            });
          throw err;
        }
        relayer = current;
        continue;
      }
      // Written: never sent again from here, whatever the broadcast does.
      family.afterCommit(record, relayer);
      return record;
    }
  }

  const router = createLaneRouter({
    isPool: relayers.isPool,
    lanes: relayers.lanes,
    lanePending: repos.relayers.lanePending,
  });
  /**
   * A send of a key pool goes to the best lane (lane-routing.ts) and, refused there for its funds, its signer or the
   * lane's in-flight limit, to the next; none left, the answer says why lane by lane. Without a pool: `sendOn`.
   */
  async function sendNow(
    relayer: RelayerRow,
    body: TransactionBody,
    idempotency?: IdempotencyClaimOf,
  ): Promise<TransactionRecord> {
    if (relayer.network_type !== 'evm') return familyPools(relayer, body, idempotency);
    const lanes = await router.candidates(relayer);
    if (!lanes) return sendOn(relayer, body, idempotency);
    const refusals = [...lanes.skipped];
    for (const c of lanes.offered) {
      try {
        const record = await sendOn(c.row, body, idempotency, c.maxPending);
        deps.laneSent?.(relayer.id, c.lane.address);
        return record;
      } catch (err) {
        const why = laneRefusal(err);
        if (!why) throw err;
        router.refused(c);
        refusals.push({ address: c.lane.address, state: c.lane.state, why: why.text, funds: why.funds });
      }
    }
    throw noLaneError(relayer.id, refusals);
  }

  const familyPools = createFamilyPoolSends({
    relayers,
    families,
    lanes: deps.familyLanes,
    sendOn,
    laneSent: deps.laneSent,
  });

  return {
    async send(relayer, body, idempotencyKey) {
      if (idempotencyKey === undefined) return { record: await sendNow(relayer, body), replayed: false };
      return keyed.send(relayer.id, idempotencyKey, body, (claim) => sendNow(relayer, body, claim));
    },

    async get(relayer, id) {
      return (await stored(relayer, id)).record;
    },

    async list(relayer, page, perPage, status) {
      // Asked at once: one wait instead of two (on SQLite they also run back to back, so they agree).
      const [items, total] = await Promise.all([
        perPage === 0 ? [] : repos.transactions.list(relayer.id, status, perPage, (page - 1) * perPage),
        repos.transactions.count(relayer.id, status),
      ]);
      return { items, pagination: { current_page: page, per_page: perPage, total_items: total } };
    },

    replace(relayer, id, body) {
      return lock.run(relayer.id, async () => {
        await stored(relayer, id);
        const current = await relayers.require(relayer.id, 'NOT_FOUND');
        refuseInactive(current);
        return change(current, id, (previous) => families[current.network_type].replace(current, previous, body));
      });
    },

    cancel,

    async getByNonce(relayer, nonce) {
      if (relayer.network_type !== 'evm')
        throw new AppError('NOT_IMPLEMENTED', { reason: 'Nonce lookup only supported for EVM networks' });
      // A nonce past 2^53 is a valid u64 for the reference but no transaction of ours holds one.
      const found =
        nonce <= BigInt(Number.MAX_SAFE_INTEGER)
          ? await repos.transactions.getByNonce(relayer.id, Number(nonce))
          : undefined;
      if (!found) throw new NotFoundError('NOT_FOUND', { reason: `Transaction with nonce ${nonce} not found` });
      return found.record;
    },

    cancelPending: createPendingCancel({ repo: repos.transactions, cancel }),

    async sendFromLane(lane, body, fields) {
      const max = (await relayers.lanes(relayerIdOf(lane.id))).find((l) => l.address === lane.address);
      return sendOn(lane, body, undefined, max?.max_pending, fields);
    },
  };
}
