// Low balance, before it jams: one `relayer.balance` job per relayer reads its balance every minute (and soon after its
// transactions move), keeps the outcome as the job's payload (shared by every instance, kept across restarts), and on
// each crossing down (under 2 × min_balance, then under min_balance) sends one `relayer_low_balance` webhook event.
// Under min_balance the relayer is system-disabled as the reference does (BalanceCheckFailed); funded, it recovers.
// A key pool is not disabled while another of its keys holds min_balance: its drained key only leaves the routing
// (lane-health.ts), so one empty key does not stop the pool.
import type { Store, Tx } from '../ports.ts';
import type { Json } from '../jobs/ports.ts';
import type { JobHandler } from '../jobs/scheduler.ts';
import type { Log } from '../log.ts';
import type { RelayerEvents } from '../webhooks/outbox.ts';
import type { FeeSuggestions } from '../chains/ports.ts';
import type { BalanceWatchView } from '../chains/views.ts';
import type { RelayerRow } from './ports.ts';
import { toRelayerView } from './service.ts';
import { laneView } from './lanes.ts';
import {
  crossedDown,
  levelOf,
  levelRank,
  sendCost,
  sendsCovered,
  thresholdsOf,
  type BalanceLevel,
} from './balance-levels.ts';

export const BALANCE_CHECK = 'relayer.balance';
const LOW_BALANCE_EVENT = 'relayer_low_balance';
/** Between two checks of a relayer with nothing moving. */
const BALANCE_INTERVAL_MS = 60_000;
/** After a failed read (the network not answering): sooner than the interval. */
const RETRY_MS = 15_000;
/** Changes of a relayer's transactions within this long share one check. */
const POKE_DELAY_MS = 2_000;
const SMALLEST_UNIT = { evm: 'wei', solana: 'lamport', stellar: 'stroop' } as const;

export interface BalanceWatchDeps {
  store: Pick<Store, 'repos' | 'atomically'>;
  events: RelayerEvents;
  logger: Log;
  /** The relayer's balance, smallest unit, read from its network (throws when it does not answer). */
  balanceOf(relayer: RelayerRow): Promise<bigint>;
  /** EVM relayers: the network's prices (a send's cost when none is pending). */
  fees(relayer: RelayerRow): Promise<FeeSuggestions>;
}

export interface BalanceWatch {
  handler: JobHandler;
  /** The last check's outcome, or null before the first (read from the store: any instance's check). */
  view(relayerId: string): Promise<BalanceWatchView | null>;
  /** Every relayer's last check, for the balance gauges. */
  all(): Promise<Array<{ relayerId: string; view: BalanceWatchView }>>;
  /** The relayer's transactions moved: check its balance soon (coalesced per relayer). */
  poke(relayerId: string): void;
  /** Schedules a first check for every relayer that has none due (at start; a relayer created since). */
  resume(): Promise<void>;
  close(): void;
}

const LEVELS: readonly BalanceLevel[] = ['ok', 'low', 'below_min_balance'];

function asView(payload: Json | null): BalanceWatchView | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const p = payload as Record<string, Json>;
  if (!LEVELS.includes(p.level as BalanceLevel) || typeof p.balance !== 'string') return null;
  return p as unknown as BalanceWatchView;
}

/** Under min_balance: system-disabled (BalanceCheckFailed); back over it: enabled, unless disabled for another reason. */
async function syncDisabled(tx: Tx, row: RelayerRow, below: boolean): Promise<RelayerRow> {
  if (below && !row.system_disabled) {
    const reason = { type: 'BalanceCheckFailed', details: 'Insufficient balance' };
    await tx.relayers.setSystemDisabled(row.id, reason);
    return { ...row, system_disabled: true, disabled_reason: reason };
  }
  if (!below && row.disabled_reason?.type === 'BalanceCheckFailed') {
    await tx.relayers.setSystemDisabled(row.id, null);
    return { ...row, system_disabled: false, disabled_reason: null };
  }
  return row;
}

/** Checks asked for soon (a relayer's transactions moved, or it has no check yet): batched, scheduled due now. */
function createPokes({ store, logger }: Pick<BalanceWatchDeps, 'store' | 'logger'>) {
  const { repos } = store;
  const poked = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const due = Date.now();
    for (const id of poked)
      repos.jobs
        .schedule({ kind: BALANCE_CHECK, subject: id, dueAt: due })
        .catch((err: unknown) =>
          logger.debug({ err, relayerId: id }, 'balance check not scheduled; the next one runs on time'),
        );
    poked.clear();
  };
  const poke = (relayerId: string) => {
    poked.add(relayerId);
    timer ??= setTimeout(flush, POKE_DELAY_MS).unref();
  };
  const close = () => {
    clearTimeout(timer);
    timer = undefined;
    poked.clear();
  };
  return { poke, close };
}

export function createBalanceWatch(deps: BalanceWatchDeps): BalanceWatch {
  const { store, events, logger } = deps;
  const { repos } = store;

  /** A pool whose first key is under min_balance: whether another key holds it (a key not read counts as empty). */
  async function otherKeyFunded(relayer: RelayerRow): Promise<boolean> {
    const thresholds = thresholdsOf(relayer.policies);
    const others = (await repos.relayers.lanes(relayer.id)).filter((l) => l.position > 0);
    const balances = await Promise.all(others.map((l) => deps.balanceOf(laneView(relayer, l)).catch(() => null)));
    return balances.some((b) => b !== null && levelOf(b, thresholds) !== 'below_min_balance');
  }

  async function measure(relayer: RelayerRow, balance: bigint): Promise<BalanceWatchView> {
    const thresholds = thresholdsOf(relayer.policies);
    const pending = (await repos.transactions.listUnfinished(relayer.id, 256)).map((s) => s.record);
    const needFees = relayer.network_type === 'evm' && pending.length === 0;
    const fees = needFees ? await deps.fees(relayer).catch(() => null) : null;
    const cost = sendCost(relayer.network_type, pending, fees);
    return {
      level: levelOf(balance, thresholds),
      balance: balance.toString(),
      min_balance: thresholds ? thresholds.min.toString() : null,
      warning_balance: thresholds ? thresholds.warning.toString() : null,
      send_cost: cost === null ? null : cost.toString(),
      sends_covered: sendsCovered(balance, thresholds, cost),
      checked_at: new Date().toISOString(),
    };
  }

  /** The check's outcome, the relayer's state and (on a crossing down) its event: one store transaction. */
  async function record(
    relayer: RelayerRow,
    view: BalanceWatchView,
    previous: BalanceWatchView | null,
    dueAt: number,
  ): Promise<void> {
    const crossed = crossedDown(previous?.level ?? null, view.level);
    const below = view.level === 'below_min_balance' && !(await otherKeyFunded(relayer));
    await store.atomically(async (tx) => {
      await tx.jobs.schedule({
        kind: BALANCE_CHECK,
        subject: relayer.id,
        dueAt,
        payload: view as unknown as Json,
        replace: true,
      });
      const row = await tx.relayers.get(relayer.id);
      if (!row) return;
      const now = await syncDisabled(tx, row, below);
      const unit = SMALLEST_UNIT[row.network_type];
      if (crossed)
        await events.relayerEvent(tx, row.id, LOW_BALANCE_EVENT, {
          payload_type: LOW_BALANCE_EVENT,
          relayer: toRelayerView(now),
          ...view,
          unit,
        });
    });
    const facts = {
      relayerId: relayer.id,
      balance: view.balance,
      minBalance: view.min_balance,
      level: view.level,
      sendsCovered: view.sends_covered,
    };
    if (crossed)
      logger.warn(
        facts,
        view.level === 'low'
          ? 'relayer balance under its warning threshold (2 × min_balance)'
          : below
            ? 'relayer balance under its min_balance: relayer disabled until funded'
            : "relayer's first key under its min_balance: the pool's other keys take its sends",
      );
    else if (previous && levelRank(view.level) < levelRank(previous.level))
      logger.info(facts, 'relayer balance recovered');
  }

  const handler: JobHandler = async (job) => {
    const relayer = await repos.relayers.get(job.subject);
    if (!relayer) return undefined;
    let balance: bigint;
    try {
      balance = await deps.balanceOf(relayer);
    } catch (err) {
      logger.debug(
        { relayerId: relayer.id, reason: (err as { reason?: string }).reason ?? (err as Error).message },
        'balance check skipped: the network did not answer',
      );
      return { rescheduleAt: Date.now() + RETRY_MS };
    }
    const dueAt = Date.now() + BALANCE_INTERVAL_MS;
    await record(relayer, await measure(relayer, balance), asView(job.payload), dueAt);
    return { rescheduleAt: dueAt };
  };

  const { poke, close } = createPokes(deps);

  /** The last check's outcome; a relayer without a check job yet (created through the API since the start) gets one. */
  async function view(relayerId: string): Promise<BalanceWatchView | null> {
    const job = await repos.jobs.get(BALANCE_CHECK, relayerId);
    if (!job) poke(relayerId);
    return asView(job?.payload ?? null);
  }

  async function eachRelayer(fn: (relayer: RelayerRow) => Promise<void>): Promise<void> {
    for (let offset = 0; ; offset += 100) {
      const page = await repos.relayers.list(100, offset);
      for (const relayer of page) await fn(relayer);
      if (page.length < 100) return;
    }
  }

  return {
    handler,
    view,
    async all() {
      const out: Array<{ relayerId: string; view: BalanceWatchView }> = [];
      await eachRelayer(async (r) => {
        const v = await view(r.id);
        if (v) out.push({ relayerId: r.id, view: v });
      });
      return out;
    },
    poke,
    async resume() {
      // The earliest due time wins and the payload is kept: a check already due stands, its outcome stays.
      await eachRelayer((r) => repos.jobs.schedule({ kind: BALANCE_CHECK, subject: r.id, dueAt: Date.now() }));
    },
    close,
  };
}
