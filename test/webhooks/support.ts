// Shared test tools for webhooks: a loopback receiver, polling waits, and events written through the outbox.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { Db } from '../../src/store/sqlite/db.ts';
import type { Store } from '../../src/domain/ports.ts';
import { createOutbox } from '../../src/domain/webhooks/outbox.ts';
import type { TransactionRecord } from '../../src/domain/types.ts';
import type { TestServer } from '../helper.ts';

/** Short timings so retries happen in milliseconds; the poll picks up events written by tests. */
export const FAST_WEBHOOKS: Record<string, string> = {
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_BACKOFF_BASE_MS: '20',
  WEBHOOK_BACKOFF_MAX_MS: '80',
  WEBHOOK_TIMEOUT_MS: '3000',
};

export const SIGNING_KEY = 'whsec-test-key-0123456789abcdefghijklmnop';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides each answer's status (default 200); `hang` never answers. */
  respond: (req: Received, index: number) => number | 'hang';
  close(): Promise<void>;
}

/** A node:http server on a free loopback port that records every request it gets. */
export async function startReceiver(
  t: TestContext | undefined,
  respond: Receiver['respond'] = () => 200,
): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { url: '', received, respond, close: async () => {} } as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const entry = { headers: req.headers, raw, body };
      received.push(entry);
      const status = receiver.respond(entry, received.length - 1);
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t?.after(() => receiver.close());
  return receiver;
}

/** Polls `check` until it returns a truthy value (10 s cap, so a broken test fails instead of hanging). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until the newest delivery of notification `id` is marked failed, and returns it as the API lists it. */
export function waitForFailedDelivery(s: TestServer, id: string): Promise<Record<string, any>> {
  return waitFor(async () => {
    const res = await s.request('GET', `/api/v1/notifications/${id}/deliveries`);
    return res.body.data[0]?.status === 'failed' && res.body.data[0];
  }, 'the event to fail');
}

/** Points relayer `relayerId` at `notificationId`, inserting a bare relayer row when the id is not seeded. */
export function pointRelayer(db: Db, relayerId: string, notificationId: string | null): void {
  const now = new Date().toISOString();
  const updated = db
    .prepare('UPDATE relayers SET notification_id = ?, updated_at = ? WHERE id = ?')
    .run(notificationId, now, relayerId);
  if (updated.changes > 0) return;
  db.prepare(
    `INSERT INTO relayers (id, name, network, network_type, signer_id, address, notification_id, created_at, updated_at)
     VALUES (?, ?, 'sepolia', 'evm', 'dev-evm-signer', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', ?, ?, ?)`,
  ).run(relayerId, `test relayer ${relayerId}`, notificationId, now, now);
}

export function txRecord(
  relayerId: string,
  id: string,
  status: TransactionRecord['status'] = 'pending',
  extra: Record<string, unknown> = {},
): TransactionRecord {
  return {
    id,
    relayer_id: relayerId,
    status,
    status_reason: null,
    created_at: '2025-01-01T00:00:00.000Z',
    sent_at: null,
    confirmed_at: null,
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: '1',
    ...extra,
  };
}

/** Records transaction changes the way the transaction service does: outbox calls inside one store transaction. */
export async function emit(store: Store, ...records: TransactionRecord[]): Promise<void> {
  const outbox = createOutbox();
  await store.atomically(async (tx) => {
    for (const r of records) await outbox.transactionChanged(tx, r);
  });
}
