// The store as the domain sees it: every repository group, and `atomically` to run several of them in one transaction.
// Adapters: src/store/sqlite/ (embedded default); a shared-database adapter implements the same ports.
import type { RelayersRepo, TransactionsRepo } from './relayers/ports.ts';
import type { NotificationsRepo, WebhookEventsRepo } from './notifications/ports.ts';
import type { JobSpec, JobsRepo } from './jobs/ports.ts';
import type { SignersRepo } from './signers/ports.ts';
import type { NetworkOverridesRepo } from './networks/ports.ts';
import type { ApiKeysRepo } from './api-keys/ports.ts';
import type { PluginOverridesRepo } from './plugins/ports.ts';
import type { IdempotencyRepo } from './idempotency/ports.ts';

export interface Repositories {
  relayers: RelayersRepo;
  transactions: TransactionsRepo;
  notifications: NotificationsRepo;
  webhookEvents: WebhookEventsRepo;
  jobs: JobsRepo;
  signers: SignersRepo;
  networkOverrides: NetworkOverridesRepo;
  pluginOverrides: PluginOverridesRepo;
  apiKeys: ApiKeysRepo;
  idempotency: IdempotencyRepo;
}

/** The repositories bound to one open transaction. Valid only until the callback's promise settles. */
export interface Tx extends Repositories {
  /** Runs `hook` once the transaction has committed; never if it rolls back. Hooks must not throw. */
  afterCommit(hook: () => void): void;
}

/**
 * Runs `fn` in one store transaction and commits when its promise resolves, or rolls back when it
 * rejects (the rejection is passed on).
 *
 * Rules, because a transaction holds the store (SQLite: the only connection; PostgreSQL: a pooled
 * connection and row locks) for as long as `fn` runs:
 * - never await network I/O (RPC, webhooks, plugins) inside `fn`: fetch before, write inside, act after;
 * - use only `tx`'s repositories inside `fn`. `store.repos` and a nested `atomically` would wait for
 *   this very transaction; adapters refuse them with an error instead of hanging;
 * - wake other parts (dispatcher, scheduler) with `tx.afterCommit`, so they see the committed rows;
 * - keep `fn` to store work: on a shared database a transaction PostgreSQL aborts as a deadlock victim runs `fn`
 *   again (rolled back first; only the attempt that commits runs its afterCommit hooks).
 *
 * @example
 * await store.atomically(async (tx) => {
 *   if (!(await tx.transactions.update(record, 'submitted', version))) throw conflict();
 *   await outbox.transactionChanged(tx, record);
 *   await tx.jobs.schedule({ kind: 'evm.check', subject: record.id, dueAt: Date.now() + 5_000 });
 * });
 */
export type Atomically = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export interface Store {
  /** Each call on its own (autocommit). While a transaction is open elsewhere, waits for it to end. */
  repos: Repositories;
  atomically: Atomically;
  /**
   * `listener` runs after a transaction that scheduled a job commits (or after a lone `schedule`),
   * so the job scheduler claims new work at once instead of at its next poll. Returns unsubscribe.
   * `scheduled` are the jobs as this instance scheduled them; absent (another instance's commit, a reconnect),
   * the scheduler looks now.
   */
  onJobsScheduled(listener: (scheduled?: readonly JobSpec[]) => void): () => void;
  /** Waits for the open transaction (if any) to end, then closes the store. */
  close(): Promise<void>;
}
