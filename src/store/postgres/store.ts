// The shared-database store: PostgreSQL repositories behind the async ports, atomically() over a pooled connection,
// and LISTEN/NOTIFY so that a commit on any instance wakes the dispatchers and schedulers of all of them.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';
import type { Repositories, Store, Tx } from '../../domain/ports.ts';
import type { JobSpec } from '../../domain/jobs/ports.ts';
import { connect, type Db, type PgConnection } from './db.ts';
import type { Database } from './schema.ts';
import { createRelayersRepo, type InTx, type ReserveFunds } from './relayers-repo.ts';
import { withLanes } from './lanes-repo.ts';
import { createTransactionsRepo, type NotificationSeen } from './transactions-repo.ts';
import { createNotificationsRepo } from './notifications-repo.ts';
import { createWebhookEventsRepo, type OutboxLease } from './webhook-events-repo.ts';
import { createJobsRepo, scheduleStatement } from './jobs-repo.ts';
import { JOBS_CHANNEL, LIVE_CHANNEL, OUTBOX_CHANNEL } from './channels.ts';
import { createListener, type Listener } from './listener.ts';
import { createWriteBuffer, type CountChanges, type WriteBuffer } from './write-buffer.ts';
import { createApiKeysRepo } from './api-keys-repo.ts';
import { createNetworkOverridesRepo, createPluginOverridesRepo } from './overrides-repos.ts';
import { createSignersRepo } from './signers-repo.ts';
import { createIdempotencyRepo } from './idempotency-repo.ts';

export interface PostgresStore extends Store {
  readonly db: Db;
  readonly connection: PgConnection;
  /** `listener` runs after an outbox write commits on any instance sharing the database. Returns unsubscribe. */
  onOutboxWritten(listener: () => void): () => void;
  /** `listener` runs for each transaction row another instance (or tool) commits: its id and new version. Returns unsubscribe. */
  onRemoteTransactionWritten(listener: (id: string, version: number) => void): () => void;
  /** True when the database answers a trivial query; never rejects. */
  answers(): Promise<boolean>;
}

export interface PostgresStoreOptions {
  url: string;
  outbox: OutboxLease;
  /** Pool size (default 10). */
  max?: number;
}

interface Scope {
  open: boolean;
  hooks?: Array<() => void>;
}

const ENDED = "a transaction's repositories were used after it ended (or outside its callback)";
/** deadlock_detected, serialization_failure. */
const RETRIED_CODES = new Set(['40P01', '40001']);
const TX_ATTEMPTS = 4;
const NESTED = 'atomically() was called inside atomically(): use the repositories of the tx you were given';
const OUTSIDE_FROM_INSIDE = 'store.repos was used inside atomically(): use the repositories of the tx you were given';

/** Every method of `repo`, refused with `message` while `refuse()` says so. */
function guarded<T extends object>(repo: T, refuse: () => string | undefined): T {
  const view: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repo)) {
    view[name] = (...args: unknown[]) => {
      const reason = refuse();
      return reason ? Promise.reject(new Error(reason)) : (fn as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return view as T;
}

/** Outside a transaction a reserve is one statement of its own (inside one, `held` applies it at the commit). */
const reserveNow = (q: Kysely<Database>) => async (relayerId: string, amount: bigint) => {
  await createTransactionsRepo(q).moveFunds(relayerId, amount, 0n);
};

function repositories(
  q: Kysely<Database>,
  inTx: InTx,
  outbox: OutboxLease,
  counts?: CountChanges,
  seen?: NotificationSeen,
  held?: WriteBuffer,
): Repositories {
  const heldFunds = held && ((id: string, reserved: bigint, released: bigint) => held.funds(id, reserved, released));
  const reserve: ReserveFunds = held
    ? async (id, amount, guardNet) => held.funds(id, amount, 0n, guardNet)
    : reserveNow(q);
  return {
    relayers: withLanes(q, createRelayersRepo(q, inTx, reserve), reserve),
    transactions: createTransactionsRepo(q, counts, seen, heldFunds),
    notifications: createNotificationsRepo(q),
    webhookEvents: createWebhookEventsRepo(q, outbox),
    jobs: createJobsRepo(q, outbox.owner),
    signers: createSignersRepo(q),
    networkOverrides: createNetworkOverridesRepo(q),
    pluginOverrides: createPluginOverridesRepo(q),
    apiKeys: createApiKeysRepo(q),
    idempotency: createIdempotencyRepo(q),
  };
}

/** The NOTIFY channels this instance listens to (a commit on any instance), each rung to its listeners here. */
function createWakeups(connection: PgConnection, owner: string) {
  const jobListeners = new Set<(scheduled?: readonly JobSpec[]) => void>();
  const outboxListeners = new Set<() => void>();
  const transactionListeners = new Set<(id: string, version: number) => void>();
  const jobsScheduled = (scheduled?: readonly JobSpec[]) => {
    for (const l of jobListeners) l(scheduled);
  };
  const transactionWritten = (payload?: string) => {
    // Without a payload (the LISTEN connection came back): what was missed is not known, and a stream's reader
    // reads the current state again after a gap anyway.
    const [, id, version] = payload?.split(' ') ?? [];
    if (id === undefined || version === undefined) return;
    for (const l of transactionListeners) l(id, Number(version));
  };
  // Another instance's NOTIFY does not say which jobs: the listeners look now.
  const listener: Listener = createListener(connection.pool, owner, {
    [JOBS_CHANNEL]: () => jobsScheduled(),
    [OUTBOX_CHANNEL]: () => {
      for (const l of outboxListeners) l();
    },
    [LIVE_CHANNEL]: transactionWritten,
  });
  const subscribe =
    <L>(set: Set<L>) =>
    (l: L) => {
      set.add(l);
      return () => set.delete(l);
    };
  return {
    listener,
    jobsScheduled,
    onJobsScheduled: subscribe(jobListeners),
    onOutboxWritten: subscribe(outboxListeners),
    onRemoteTransactionWritten: subscribe(transactionListeners),
  };
}

export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const connection = connect(options.url, { max: options.max, instance: options.outbox.owner });
  const { db } = connection;
  const scopes = new AsyncLocalStorage<Scope>();
  const wakeups = createWakeups(connection, options.outbox.owner);
  const { jobsScheduled } = wakeups;

  const outsideRefused = () => (scopes.getStore()?.open ? OUTSIDE_FROM_INSIDE : undefined);
  const plain = repositories(db, (fn) => db.transaction().execute(fn), options.outbox);
  const repos = guardAll(plain, outsideRefused);
  const schedule = repos.jobs.schedule;
  repos.jobs.schedule = async (spec) => {
    await schedule(spec);
    jobsScheduled([spec]);
  };

  /**
   * A deadlock or serialization failure is PostgreSQL choosing a victim among concurrent writers (other instances
   * included), not a fault of the request: the victim runs again (fn is store work only; see Atomically).
   */
  async function atomically<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await runOnce(fn);
      } catch (err) {
        if (attempt >= TX_ATTEMPTS || !RETRIED_CODES.has((err as { code?: string })?.code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  }

  async function runOnce<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (scopes.getStore()?.open) throw new Error(NESTED);
    const scope: Scope = { open: true };
    let result: T;
    try {
      result = await db.transaction().execute((trx) =>
        scopes.run(scope, async () => {
          const [tx, held] = bindTx(trx, scope);
          const value = await fn(tx);
          await held.commit();
          return value;
        }),
      );
    } finally {
      scope.open = false;
    }
    for (const hook of scope.hooks ?? []) runHook(hook);
    return result;
  }

  function bindTx(trx: Kysely<Database>, scope: Scope): [Tx, WriteBuffer] {
    const ended = () => (scope.open ? undefined : ENDED);
    const held = createWriteBuffer(trx, options.outbox.owner);
    const known = new Map<string, string | null>();
    const raw = repositories(
      trx,
      (fn) => fn(trx),
      options.outbox,
      held.counts,
      (id, notification) => known.set(id, notification),
      held,
    );
    holdInserts(raw, held, options.outbox.owner);
    rememberNotifications(raw, known);
    const bound = guardAll(raw, ended);
    const afterCommit = (hook: () => void) => {
      if (!scope.open) throw new Error(ENDED);
      scope.hooks ??= [];
      if (!scope.hooks.includes(hook)) scope.hooks.push(hook);
    };
    const schedule = bound.jobs.schedule;
    // One ring after the commit, with every job the transaction scheduled.
    const scheduled: JobSpec[] = [];
    const ringJobs = () => jobsScheduled(scheduled);
    bound.jobs.schedule = async (spec) => {
      await schedule(spec);
      scheduled.push(spec);
      afterCommit(ringJobs);
    };
    return [{ ...bound, afterCommit }, held];
  }

  return {
    db,
    connection,
    repos,
    atomically,
    onJobsScheduled: wakeups.onJobsScheduled,
    onOutboxWritten: wakeups.onOutboxWritten,
    onRemoteTransactionWritten: wakeups.onRemoteTransactionWritten,
    answers: () =>
      sql`SELECT 1`.execute(db).then(
        () => true,
        () => false,
      ),
    async close() {
      await wakeups.listener.close();
      await db.destroy();
    },
  };
}

function guardAll(r: Repositories, refuse: () => string | undefined): Repositories {
  const out: Record<string, object> = {};
  for (const [name, repo] of Object.entries(r)) out[name] = guarded(repo as object, refuse);
  return out as unknown as Repositories;
}

/** The tx's record and outbox inserts and job upserts are held (write-buffer.ts); every other statement sends them first. */
function holdInserts(repos: Repositories, held: WriteBuffer, instance: string): void {
  for (const repo of Object.values(repos) as Array<Record<string, (...args: unknown[]) => Promise<unknown>>>) {
    for (const [name, fn] of Object.entries(repo)) {
      repo[name] = async (...args) => {
        await held.flush();
        return fn(...args);
      };
    }
  }
  repos.transactions.insert = async (record, createdMs, nonce, lane) =>
    held.transaction({ record, createdMs, nonce, ...(lane ? { lane } : {}) });
  repos.webhookEvents.insert = async (row) => held.event(row);
  repos.jobs.schedule = async (spec) => held.job(scheduleStatement(spec, instance));
}

/**
 * `known`: relayers' notifications this transaction has read already (its record updates return them): a status
 * change's event is then written without a read of its own.
 */
function rememberNotifications(repos: Repositories, known: Map<string, string | null>): void {
  const { getForUpdate, advanceFrom, update } = repos.relayers;
  const { notificationOfRelayer } = repos.webhookEvents;
  repos.relayers.getForUpdate = async (id) => {
    const row = await getForUpdate(id);
    if (row) known.set(id, row.notification_id);
    return row;
  };
  repos.relayers.advanceFrom = async (id, from, to, reserve) => {
    const row = await advanceFrom(id, from, to, reserve);
    if (row) known.set(id, row.notification_id);
    return row;
  };
  repos.relayers.update = async (id, changes) => {
    known.delete(id);
    read.delete(id);
    return update(id, changes);
  };
  // A relayer's notification read once per transaction: a batch of status changes of one relayer (its broadcasts
  // marked submitted) then costs one read for their events, not one each.
  const read = new Map<string, Promise<string | null>>();
  repos.webhookEvents.notificationOfRelayer = async (relayerId) => {
    if (known.has(relayerId)) return known.get(relayerId)!;
    let once = read.get(relayerId);
    if (!once) read.set(relayerId, (once = notificationOfRelayer(relayerId)));
    return once;
  };
}

function runHook(hook: () => void): void {
  try {
    hook();
  } catch (err) {
    // The commit stands; a broken hook must not make the caller believe it failed.
    process.emitWarning(`after-commit hook failed: ${(err as Error)?.stack ?? String(err)}`);
  }
}
