// The repository contract: every store adapter runs these same cases (test/store/<adapter>.test.ts plugs one in).
import { describe } from 'node:test';
import type { TestContext } from 'node:test';
import type { Store } from '../../../src/domain/ports.ts';
import { atomicallyContract } from './atomically.ts';
import { relayersContract } from './relayers.ts';
import { transactionsContract } from './transactions.ts';
import { notificationsContract } from './notifications.ts';
import { webhookEventsContract } from './webhook-events.ts';
import { jobsContract } from './jobs.ts';
import { managementContract } from './management.ts';
import { idempotencyContract } from './idempotency.ts';
import { lanesContract } from './lanes.ts';

/** A fresh, empty, migrated store for one test; the factory closes and removes it via t.after. */
export type StoreFactory = (t: TestContext) => Promise<Store>;

/** `skip`: why this adapter cannot run here (e.g. no database server); the cases are reported as skipped. */
export function runStoreContract(adapter: string, factory: StoreFactory, skip?: string): void {
  const opts = skip ? { skip } : {};
  describe(`${adapter} store: atomically`, opts, () => atomicallyContract(factory));
  describe(`${adapter} store: relayers`, opts, () => relayersContract(factory));
  describe(`${adapter} store: transactions`, opts, () => transactionsContract(factory));
  describe(`${adapter} store: notifications`, opts, () => notificationsContract(factory));
  describe(`${adapter} store: webhook events (outbox)`, opts, () => webhookEventsContract(factory));
  describe(`${adapter} store: jobs`, opts, () => jobsContract(factory));
  describe(`${adapter} store: management (relayers through the API, signers, overrides, API keys)`, opts, () =>
    managementContract(factory),
  );
  describe(`${adapter} store: idempotency keys`, opts, () => idempotencyContract(factory));
  describe(`${adapter} store: key pool lanes`, opts, () => lanesContract(factory));
}
