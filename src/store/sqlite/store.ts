// The embedded store: the SQLite repositories behind the async ports, and atomically() over the one connection.
import type { Db } from './db.ts';
import type { Repositories, Store, Tx } from '../../domain/ports.ts';
import type { JobSpec, JobsRepo } from '../../domain/jobs/ports.ts';
import { createGate, type Gate, type TxScope } from './gate.ts';
import { viewOf, type Invoke, type SyncOf } from './sync-ops.ts';
import { createRelayersRepo } from './relayers-repo.ts';
import { withLanes } from './lanes-repo.ts';
import { createTransactionsRepo } from './transactions-repo.ts';
import { createNotificationsRepo } from './notifications-repo.ts';
import { createWebhookEventsRepo } from './webhook-events-repo.ts';
import { createJobsRepo } from './jobs-repo.ts';
import { createSignersRepo } from './signers-repo.ts';
import { createNetworkOverridesRepo, createPluginOverridesRepo } from './overrides-repos.ts';
import { createApiKeysRepo } from './api-keys-repo.ts';
import { createIdempotencyRepo } from './idempotency-repo.ts';

export interface SqliteStore extends Store {
  readonly db: Db;
  /** Runs synchronous work on the connection in turn with transactions (probes, tools). */
  run<T>(fn: () => T): Promise<T>;
}

type SyncRepos = { [K in keyof Repositories]: SyncOf<Repositories[K]> };

const ENDED = "a transaction's repositories were used after it ended (or outside its callback)";

/**
 * Statements are prepared once, here. Outside a transaction each call runs at once, unless a
 * transaction is open: then it waits for the end of it (see gate.ts). A transaction is
 * BEGIN IMMEDIATE … COMMIT: it takes the write lock up front, so it never fails half-way on
 * a lock upgrade when another process shares the file.
 */
export function createSqliteStore(db: Db): SqliteStore {
  const gate = createGate();
  const ops: SyncRepos = {
    relayers: withLanes(db, createRelayersRepo(db)),
    transactions: createTransactionsRepo(db),
    notifications: createNotificationsRepo(db),
    webhookEvents: createWebhookEventsRepo(db),
    jobs: createJobsRepo(db),
    signers: createSignersRepo(db),
    networkOverrides: createNetworkOverridesRepo(db),
    pluginOverrides: createPluginOverridesRepo(db),
    apiKeys: createApiKeysRepo(db),
    idempotency: createIdempotencyRepo(db),
  };
  const plainViews = (invoke: Invoke) => ({
    signers: viewOf(ops.signers, invoke),
    networkOverrides: viewOf(ops.networkOverrides, invoke),
    pluginOverrides: viewOf(ops.pluginOverrides, invoke),
    apiKeys: viewOf(ops.apiKeys, invoke),
    idempotency: viewOf(ops.idempotency, invoke),
  });
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const jobListeners = new Set<(scheduled?: readonly JobSpec[]) => void>();
  const jobsScheduled = (scheduled?: readonly JobSpec[]) => {
    for (const listener of jobListeners) listener(scheduled);
  };

  const outside: Invoke = (op, args) => gate.run(op, args);
  const repos: Repositories = {
    relayers: viewOf(ops.relayers, outside),
    transactions: viewOf(ops.transactions, outside),
    notifications: viewOf(ops.notifications, outside),
    webhookEvents: viewOf(ops.webhookEvents, outside),
    jobs: withWake(viewOf(ops.jobs, outside), (spec) => jobsScheduled([spec])),
    ...plainViews(outside),
  };

  // One set of transaction repositories for the store: a call is served only from the code of an open
  // transaction (its callback and what it awaits), so a tx kept past its end is refused.
  const inTx: Invoke = (op, args) => {
    if (!gate.current()) return Promise.reject(new Error(ENDED));
    try {
      return Promise.resolve(op(...args));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const tx: Tx = {
    relayers: viewOf(ops.relayers, inTx),
    transactions: viewOf(ops.transactions, inTx),
    notifications: viewOf(ops.notifications, inTx),
    webhookEvents: viewOf(ops.webhookEvents, inTx),
    jobs: withWake(viewOf(ops.jobs, inTx), (spec) => tx.afterCommit(() => jobsScheduled([spec]))),
    ...plainViews(inTx),
    afterCommit(hook) {
      const scope = gate.current();
      if (!scope) throw new Error(ENDED);
      scope.hooks ??= [];
      if (!scope.hooks.includes(hook)) scope.hooks.push(hook);
    },
  };

  async function atomically<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const turn = gate.enter();
    if (turn) await turn;
    const scope: TxScope = { open: true };
    let result: T;
    try {
      begin.run();
      result = await gate.within(scope, () => fn(tx));
      commit.run();
    } catch (err) {
      scope.open = false;
      if (db.inTransaction) rollbackQuietly();
      gate.leave();
      throw err;
    }
    scope.open = false;
    gate.leave();
    if (scope.hooks) runHooks(scope.hooks);
    return result;
  }

  function rollbackQuietly() {
    try {
      rollback.run();
    } catch {
      // The connection is gone (closed, I/O error): SQLite has already discarded the transaction.
    }
  }

  return {
    db,
    repos,
    atomically,
    onJobsScheduled(listener) {
      jobListeners.add(listener);
      return () => jobListeners.delete(listener);
    },
    run: (fn) => gate.run(fn, []),
    async close() {
      await waitTurn(gate);
      try {
        db.close();
      } finally {
        // Whatever was queued now runs against the closed connection and fails with its error, not a hang.
        gate.leave();
      }
    },
  };
}

async function waitTurn(gate: Gate): Promise<void> {
  const turn = gate.enter();
  if (turn) await turn;
}

function runHooks(hooks: Array<() => void>): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      // The commit stands; a broken hook must not make the caller believe it failed.
      process.emitWarning(`after-commit hook failed: ${(err as Error)?.stack ?? String(err)}`);
    }
  }
}

/** Rings `scheduled` with the job after each schedule() (for a tx view: registers it to ring after the commit). */
function withWake(jobs: JobsRepo, scheduled: (spec: JobSpec) => void): JobsRepo {
  const schedule = jobs.schedule;
  jobs.schedule = async (spec) => {
    await schedule(spec);
    scheduled(spec);
  };
  return jobs;
}
