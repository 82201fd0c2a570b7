// The EVM family of the transaction service: a send is priced from the chain, checked against the balance, signed
// with the nonce taken in the store transaction that writes it (`sent`), and broadcast right after the commit.
// The relayer's `evm.check` job (transactions/evm/check.ts) moves it on from there.
import { AppError, ValidationError } from '../../../errors.ts';
import type { Store, Tx } from '../../ports.ts';
import type { RelayerRow } from '../../relayers/ports.ts';
import type { RelayerService } from '../../relayers/service.ts';
import type { Log } from '../../log.ts';
import { FINAL_STATUSES, type TransactionStatus } from '../../types.ts';
import type { RelayFamily, TransitionObserver } from '../family.ts';
import type { RecordWriter } from '../record-writer.ts';
import { hasWrongChecksum } from './address.ts';
import { maxCost, prepareEvm, unsignedEvm, type EvmBody, type EvmPrepared, type GasSource } from './transaction.ts';
import {
  asEvm,
  isNoop,
  noopPrepared,
  preparedOf,
  repricing,
  withVersion,
  type EvmRecord,
  type EvmSigner,
} from './versions.ts';
import { isOptimism, lacksMempool, noopGasLimit } from './network-kind.ts';
import { createEvmSubmitter } from './submit.ts';
import { createFundsGuard, refusal, type FundsAsk, type FundsSnapshot } from './funds.ts';
import { heldBy } from '../record-writer.ts';
import type { FundsLedger } from '../../relayers/ports.ts';
import { createEvmCheck, EVM_CHECK } from './check.ts';
import { checkIntervalMs } from './timing.ts';
import { enforceEvmPolicies } from './policies.ts';
import { gasPriceCap, minBalance } from '../../relayers/policies.ts';
import { relayerIdOf } from '../../relayers/lanes.ts';
import type { RelayerEvents } from '../../webhooks/outbox.ts';
import type { LaneObserver } from './tick.ts';
import type { LaneFunds } from './lane-top-up.ts';

const REPLACEABLE: ReadonlySet<TransactionStatus> = new Set(['pending', 'sent', 'submitted']);
const CANCELABLE = REPLACEABLE;

export interface EvmRelayDeps {
  relayers: RelayerService;
  store: Pick<Store, 'repos' | 'atomically'>;
  writer: RecordWriter;
  logger: Log;
  observer?: TransitionObserver | undefined;
  /** Key pools: lane state events and metrics (lane-health.ts). */
  relayerEvents?: RelayerEvents | undefined;
  lanes?: LaneObserver | undefined;
  /** Key pools with a funding key: top-ups (lane-top-up.ts). */
  laneFunds?: LaneFunds | undefined;
}

/** Plain transfers get the node's estimate exactly (21,000); calls a 10% margin over it. */
function gasFromChain(relayers: RelayerService, relayer: RelayerRow): GasSource {
  return async ({ to, data, value }) => {
    const estimate = await relayers
      .chain(relayer)
      .estimateGas({ from: relayer.address as `0x${string}`, to, data, value });
    if (!estimate.ok) {
      const why = estimate.revert?.message ?? estimate.reason;
      throw new ValidationError(
        `gas estimation failed: ${why}; the transaction would fail on chain (give 'gas_limit' to send it anyway)`,
      );
    }
    return data && data !== '0x' ? (estimate.gas * 11n + 9n) / 10n : estimate.gas;
  };
}

export function createEvmFamily(deps: EvmRelayDeps): RelayFamily {
  const { relayers, store, writer, logger } = deps;
  const funds = createFundsGuard(2_000);
  const submitter = createEvmSubmitter({ store, writer, logger });
  const fees = (relayer: RelayerRow) => () => relayers.chain(relayer).fees();
  /**
   * Priced from the chain (or as given), held to the relayer's policies, and paid for (the balance check) before
   * anything is signed. On OP-stack networks the L1 data fee (an estimate at signing, with the nonce expected) counts
   * in min_balance and the balance check, and is returned for the record.
   */
  const price = async (relayer: RelayerRow, body: EvmBody, nonce: number, old?: EvmRecord) => {
    // A replacement must beat the old version by 10% only where a pool holds it (the reference skips it without one).
    const previous = old && !lacksMempool(relayers.network(relayer)) ? old : undefined;
    const priced = await prepareEvm(body, fees(relayer), previous, Date.now(), gasFromChain(relayers, relayer));
    if (body.to && hasWrongChecksum(body.to))
      logger.warn(
        { relayerId: relayer.id, to: body.to, checksummed: priced.to },
        "'to' has a wrong EIP-55 checksum; accepted, as the reference accepts it",
      );
    const l1Fee = await l1FeeOf(relayer, priced, nonce);
    const prepared = enforceEvmPolicies(relayer.policies, body, priced);
    const parts = l1Fee === null ? 'value + gas_limit × fee' : 'value + gas_limit × fee + L1 data fee';
    const worst = maxCost(prepared) + (l1Fee ?? 0n);
    // A replacement asks only for what it adds to the old version's hold (both may still be mined, never both).
    const cost = old ? worst - heldBy(old) : worst;
    const ask: FundsAsk = {
      relayerId: relayer.id,
      cost: cost > 0n ? cost : 0n,
      minBalance: minBalance(relayer.policies),
      parts,
    };
    const snapshot = await fundsBefore(relayer, ask);
    /** Under the ledger's lock (send-writer.ts): a refusal also makes the next send read the node again. */
    const admit = (ledger: FundsLedger, reserved: bigint, held: bigint) => {
      const refused = refusal(snapshot, ledger, reserved, { ...ask, cost: held });
      if (refused) funds.forget(relayer.id);
      return refused;
    };
    return { prepared, l1Fee, admit };
  };
  /**
   * Before anything is signed: the balance must cover the send on top of what the ledger held when it was read, and
   * min_balance; a refusal from a snapshot read before this send reads the node again first.
   */
  const fundsBefore = async (relayer: RelayerRow, ask: FundsAsk): Promise<FundsSnapshot> => {
    const ledger = () => store.repos.transactions.funds(relayer.id);
    const balance = () => relayers.chain(relayer).balance(relayer.address as `0x${string}`);
    const asked = Date.now();
    let snapshot = await funds.snapshot(relayer.id, ledger, balance);
    let refused = refusal(snapshot, snapshot.ledger, snapshot.ledger.reserved, ask);
    if (refused && snapshot.at < asked) {
      snapshot = await funds.snapshot(relayer.id, ledger, balance, true);
      refused = refusal(snapshot, snapshot.ledger, snapshot.ledger.reserved, ask);
    }
    if (refused) throw refused;
    return snapshot;
  };
  const signer = (relayer: RelayerRow): EvmSigner => {
    const resolved = relayers.signer(relayer.id);
    const signDigest = resolved.signEvmDigest?.bind(resolved);
    if (!signDigest) throw new AppError('INTERNAL', { reason: `relayer '${relayer.id}' has no EVM key` });
    return {
      signDigest,
      chainId: relayers.network(relayer).chain_id!,
      address: relayer.address,
      feeCap: gasPriceCap(relayer.policies),
    };
  };
  /** OP-stack networks: the L1 data fee (wei) the chain charges on top of gas_limit × fee; null elsewhere. */
  const l1FeeOf = async (relayer: RelayerRow, prepared: EvmPrepared, nonce: number): Promise<bigint | null> => {
    const network = relayers.network(relayer);
    return isOptimism(network) ? relayers.chain(relayer).l1Fee(unsignedEvm(network.chain_id!, nonce, prepared)) : null;
  };
  const withL1Fee =
    (l1Fee: bigint | null) =>
    (r: EvmRecord): EvmRecord =>
      l1Fee === null ? r : { ...r, l1_fee: l1Fee.toString() };
  /** The lane that signed `record` (a pool's key: its nonce, signer and funds), the relayer itself without a pool. */
  const laneOf = async (relayer: RelayerRow, record: EvmRecord): Promise<RelayerRow> => {
    const key = relayers.laneKeyOf(relayer.id, record.from);
    return key === relayer.id ? relayer : ((await store.repos.relayers.get(key)) ?? relayer);
  };
  const check = createEvmCheck({
    relayers,
    store,
    writer,
    submitter,
    logger,
    signer,
    observer: deps.observer,
    relayerEvents: deps.relayerEvents,
    lanes: deps.lanes,
    laneFunds: deps.laneFunds,
    forgetFunds: funds.forget,
  });

  /**
   * The relayer's check is due within one interval (an earlier due time stands). The interval follows the relayer's
   * network, which a held row tells as well as the store (a relayer's network never changes).
   */
  const scheduleCheck: RelayFamily['schedule'] = async (tx, record) => {
    if (FINAL_STATUSES.has(record.status)) return;
    await checkDue(
      tx,
      record.relayer_id,
      relayers.rows.held(record.relayer_id) ?? (await tx.relayers.get(record.relayer_id)),
    );
  };
  const checkDue = async (tx: Tx, relayerId: string, relayer: RelayerRow | undefined) => {
    const interval = relayer ? checkIntervalMs(relayers.network(relayer)) : 1_000;
    await tx.jobs.schedule({ kind: EVM_CHECK, subject: relayerId, dueAt: Date.now() + interval });
  };

  return {
    async prepareSend(relayer, body) {
      // The L1 fee is priced with the nonce the row says comes next (it barely depends on it).
      const { prepared, l1Fee, admit } = await price(relayer, body as EvmBody, relayer.next_nonce);
      return {
        admit,
        build(row) {
          const nonce = row.next_nonce;
          const empty = { hashes: [], noop_hashes: [], is_canceled: false } as unknown as EvmRecord;
          const fields = withVersion(empty, signer(row), nonce, prepared).then(withL1Fee(l1Fee));
          return { status: 'sent', fields, nonce, nextNonce: nonce + 1 };
        },
      };
    },

    async replace(pool, stored, body) {
      const old = asEvm(stored.record);
      const relayer = await laneOf(pool, old);
      if (!REPLACEABLE.has(old.status) || old.is_canceled) {
        const why = old.is_canceled ? 'canceled (a NOOP is taking its nonce)' : old.status;
        throw new ValidationError(
          `transaction '${old.id}' is ${why}; only ${[...REPLACEABLE].join(', ')} evm transactions can be replaced`,
        );
      }
      const { prepared, l1Fee } = await price(relayer, body as EvmBody, old.nonce, old);
      // The new version waits for its broadcast (`sent`); whichever version is mined, the record ends with its hash.
      return {
        ...withL1Fee(l1Fee)(await withVersion(old, signer(relayer), old.nonce, prepared)),
        status: old.status === 'pending' ? 'pending' : 'sent',
      };
    },

    async cancel(pool, stored) {
      const old = asEvm(stored.record);
      const relayer = await laneOf(pool, old);
      if (!CANCELABLE.has(old.status) || old.is_canceled) {
        const why = old.is_canceled && !FINAL_STATUSES.has(old.status) ? 'already being canceled' : old.status;
        throw new ValidationError(
          `transaction '${old.id}' is ${why}; only pending, sent or submitted transactions can be canceled`,
        );
      }
      if (old.status === 'pending' && old.sent_at === null) {
        // Never left the service: final now. Its nonce is not left as a gap: the check job fills it with a NOOP.
        return { ...old, status: 'canceled', status_reason: 'canceled by request', is_canceled: true };
      }
      // May already be on chain: a NOOP under the same nonce, priced to replace it (never above the fee cap: at the
      // cap it may not beat the pool's replacement rule, and is sent and tracked all the same). Canceled only if mined.
      const signs = signer(relayer);
      const network = relayers.network(relayer);
      const pricing = repricing(
        lacksMempool(network),
        preparedOf(old).pricing,
        await fees(relayer)().catch(() => null),
        'fast',
        signs.feeCap,
      );
      const noop = noopPrepared(
        relayer.address,
        pricing,
        await noopGasLimit(relayers.chain(relayer), network, relayer.address),
      );
      return {
        ...(await withVersion(old, signs, old.nonce, noop, { noop: true })),
        status: 'sent',
        status_reason: 'cancel requested: a NOOP replaces it',
        is_canceled: true,
      };
    },

    async schedule(tx, record) {
      await scheduleCheck(tx, record);
      // A canceled pending transaction left its nonce unused: the check fills it.
      if (record.status === 'canceled' && !isNoop(asEvm(record)))
        await tx.jobs.schedule({ kind: EVM_CHECK, subject: record.relayer_id, dueAt: Date.now() });
    },

    afterCommit(record, given) {
      const r = asEvm(record);
      if (r.status !== 'sent' && r.status !== 'pending') return;
      void (async () => {
        // The caller's row names the same network and URLs: no read per send (on PostgreSQL, a round trip).
        const relayer = given ?? (await store.repos.relayers.get(r.relayer_id));
        if (!relayer) return;
        // The version is not needed: submit writes through a fresh read (a newer version written meanwhile wins).
        const outcome = await submitter.submit(relayers.chain(relayer), { record: r, version: 0 });
        // Without a pool, a nonce below is missing on chain (sends raced to the sequencer): the check runs now.
        if (
          outcome.status === 'rejected' &&
          outcome.reason === 'nonce_too_high' &&
          lacksMempool(relayers.network(relayer))
        ) {
          await store.repos.jobs.schedule({ kind: EVM_CHECK, subject: r.relayer_id, dueAt: Date.now() });
        }
      })().catch((err: unknown) =>
        logger.warn({ err, transactionId: r.id }, 'fast-path broadcast failed; the relayer check retries'),
      );
    },

    // One check job per relayer moves every send of the batch: scheduled once, from the row the batch locked.
    async scheduleSends(tx, relayer, records) {
      // A pool's lanes are checked by their relayer's one job.
      if (records.some((r) => !FINAL_STATUSES.has(r.status))) await checkDue(tx, relayerIdOf(relayer.id), relayer);
    },

    jobs: { [EVM_CHECK]: check.handler },

    async resume() {
      // Every EVM relayer is checked at start: nonces resynced from the chain, in-flight transactions picked up again.
      const due = Date.now();
      for (let offset = 0; ; offset += 100) {
        const page = await store.repos.relayers.list(100, offset);
        for (const relayer of page)
          if (relayer.network_type === 'evm')
            await store.repos.jobs.schedule({ kind: EVM_CHECK, subject: relayer.id, dueAt: due });
        if (page.length < 100) break;
      }
    },
  };
}
