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

/** A fresh, empty, migrated store for one test; the factory closes and removes it via t.after. */
export type StoreFactory = (t: TestContext) => Promise<Store>;

export function runStoreContract(adapter: string, factory: StoreFactory): void {
  describe(`${adapter} store: atomically`, () => atomicallyContract(factory));
  describe(`${adapter} store: relayers`, () => relayersContract(factory));
  describe(`${adapter} store: transactions`, () => transactionsContract(factory));
  describe(`${adapter} store: notifications`, () => notificationsContract(factory));
  describe(`${adapter} store: webhook events (outbox)`, () => webhookEventsContract(factory));
  describe(`${adapter} store: jobs`, () => jobsContract(factory));
}
