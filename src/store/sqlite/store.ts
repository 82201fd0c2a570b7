// The embedded store: the SQLite repositories behind the async ports, and atomically() over the one connection.
import type { Db } from '../db.ts';
import type { Repositories, Store, Tx } from '../../domain/ports.ts';
import type { JobsRepo } from '../../domain/jobs/ports.ts';
import { createGate, type Gate } from './gate.ts';
import { viewOf, type Invoke, type SyncOf } from './sync-ops.ts';
import { createRelayersRepo } from './relayers-repo.ts';
import { createTransactionsRepo } from './transactions-repo.ts';
import { createNotificationsRepo } from './notifications-repo.ts';
import { createWebhookEventsRepo } from './webhook-events-repo.ts';
import { createJobsRepo } from './jobs-repo.ts';

export interface SqliteStore extends Store {
  readonly db: Db;
  /** Runs synchronous work on the connection in turn with transactions (probes, tools). */
  run<T>(fn: () => T): Promise<T>;
}

type SyncRepos = { [K in keyof Repositories]: SyncOf<Repositories[K]> };

const ENDED = 'this transaction has ended: its repositories can no longer be used';

/**
 * Statements are prepared once, here. Outside a transaction each call runs at once, unless a
 * transaction is open: then it waits for the end of it (see gate.ts). A transaction is
 * BEGIN IMMEDIATE … COMMIT: it takes the write lock up front, so it never fails half-way on
 * a lock upgrade when another process shares the file.
 */
export function createSqliteStore(db: Db): SqliteStore {
  const gate = createGate();
  const ops: SyncRepos = {
    relayers: createRelayersRepo(db),
    transactions: createTransactionsRepo(db),
    notifications: createNotificationsRepo(db),
    webhookEvents: createWebhookEventsRepo(db),
    jobs: createJobsRepo(db),
  };
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const jobListeners = new Set<() => void>();
  const jobsScheduled = () => {
    for (const listener of jobListeners) listener();
  };

  const outside: Invoke = (op, args) => gate.run(op, args);
  const repos: Repositories = {
    relayers: viewOf(ops.relayers, outside),
    transactions: viewOf(ops.transactions, outside),
    notifications: viewOf(ops.notifications, outside),
    webhookEvents: viewOf(ops.webhookEvents, outside),
    jobs: withWake(viewOf(ops.jobs, outside), jobsScheduled),
  };

  /** One open transaction: its repositories (made when first used) and its after-commit hooks. */
  class SqliteTx implements Tx {
    readonly scope = { open: true };
    #hooks: Array<() => void> | undefined;
    #views: Partial<Repositories> = {};
    #invoke: Invoke = (op, args) => {
      if (!this.scope.open) return Promise.reject(new Error(ENDED));
      try {
        return Promise.resolve(op(...args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    get relayers() {
      return (this.#views.relayers ??= viewOf(ops.relayers, this.#invoke));
    }
    get transactions() {
      return (this.#views.transactions ??= viewOf(ops.transactions, this.#invoke));
    }
    get notifications() {
      return (this.#views.notifications ??= viewOf(ops.notifications, this.#invoke));
    }
    get webhookEvents() {
      return (this.#views.webhookEvents ??= viewOf(ops.webhookEvents, this.#invoke));
    }
    get jobs() {
      return (this.#views.jobs ??= withWake(viewOf(ops.jobs, this.#invoke), () => this.afterCommit(jobsScheduled)));
    }
    afterCommit(hook: () => void) {
      if (!this.scope.open) throw new Error(ENDED);
      if (this.#hooks?.includes(hook)) return;
      (this.#hooks ??= []).push(hook);
    }
    committed() {
      for (const hook of this.#hooks ?? []) {
        try {
          hook();
        } catch (err) {
          // The commit stands; a broken hook must not make the caller believe it failed.
          process.emitWarning(`after-commit hook failed: ${(err as Error)?.stack ?? String(err)}`);
        }
      }
    }
  }

  async function atomically<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const turn = gate.enter();
    if (turn) await turn;
    const tx = new SqliteTx();
    let result: T;
    try {
      begin.run();
      result = await gate.within(tx.scope, () => fn(tx));
      commit.run();
    } catch (err) {
      tx.scope.open = false;
      if (db.inTransaction) rollbackQuietly();
      gate.leave();
      throw err;
    }
    tx.scope.open = false;
    gate.leave();
    tx.committed();
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

/** Rings `scheduled` after each schedule() (for a tx view: registers it to ring after the commit). */
function withWake(jobs: JobsRepo, scheduled: () => void): JobsRepo {
  const schedule = jobs.schedule;
  jobs.schedule = async (spec) => {
    await schedule(spec);
    scheduled();
  };
  return jobs;
}
