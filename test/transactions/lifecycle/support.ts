// Lifecycle tests: the real app relaying to a real anvil the test controls (automine, drops, reorgs).
import type { TestContext } from 'node:test';
import type { NetworkConfig } from '../../../src/config/config.ts';
import { build, type TestServer } from '../../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, type TestAnvil } from '../../support/anvil.ts';

export const RELAYER = 'relay';
export const RELAYER_ADDRESS = ANVIL_ADDRESSES[0]!;
export const TO = ANVIL_ADDRESSES[2]!;
export const txPath = (id = '') => `/api/v1/relayers/${RELAYER}/transactions/${id}`;

/** The app with one EVM relayer (anvil's account #0) on `anvil`, plus a webhook to nowhere (events are counted in the store). */
export function buildOn(
  t: TestContext | undefined,
  anvil: TestAnvil,
  options: {
    network?: Partial<NetworkConfig>;
    dataDir?: string;
    key?: string;
    policies?: Record<string, unknown>;
  } = {},
): Promise<TestServer> {
  return build(t, {
    dataDir: options.dataDir,
    config: {
      networks: [anvil.network('anvil', options.network)],
      signers: [{ id: 'key', type: 'local', development: true, private_key: options.key ?? ANVIL_KEYS[0] }],
      relayers: [
        {
          id: RELAYER,
          name: 'lifecycle',
          network: 'anvil',
          signer_id: 'key',
          notification_id: 'hook',
          ...(options.policies ? { policies: options.policies } : {}),
        },
      ],
      notifications: [{ id: 'hook', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
      plugins: [],
    },
  });
}

/** Polls `read` until `done` holds; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what} not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The transaction as the API returns it, once it has one of `statuses`. */
export function waitStatus(
  s: TestServer,
  id: string,
  statuses: string[],
  timeoutMs?: number,
): Promise<Record<string, any>> {
  return waitFor(
    async () => (await s.request('GET', txPath(id))).body.data,
    (tx) => statuses.includes(tx.status),
    timeoutMs,
    `status ${statuses.join('/')} for ${id}`,
  );
}

/** The statuses of the transaction's transaction_update events, in the order they were recorded. */
export function eventStatuses(s: TestServer, id: string): string[] {
  const rows = s.app.db
    .prepare('SELECT body FROM webhook_events WHERE transaction_id = ? ORDER BY seq')
    .pluck()
    .all(id) as string[];
  return rows.map((b) => JSON.parse(b).payload.status);
}

/** Status changes only (consecutive duplicates collapsed: a new hash is an event too). */
export const statusPath = (events: string[]) => events.filter((e, i) => i === 0 || e !== events[i - 1]);
