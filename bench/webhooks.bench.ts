// Webhook delivery throughput: events/s to a local receiver, and the time a burst of 1,000 events takes to land.
// Run: node bench/webhooks.bench.ts  (WEBHOOK_CONCURRENCY=<n> to vary the in-flight bound)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/store/sqlite/db.ts';
import { createSqliteStore } from '../src/store/sqlite/store.ts';
import { createSecretBox } from '../src/domain/secret-box.ts';
import { createWakeSignal } from '../src/domain/webhooks/wake-signal.ts';
import { createOutbox } from '../src/domain/webhooks/outbox.ts';
import { createWebhookDispatcher } from '../src/domain/webhooks/dispatcher.ts';
import type { TransactionRecord } from '../src/domain/types.ts';

const SIGNING_KEY = 'bench-signing-key-0123456789abcdefghijkl';
const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-bench-'));
const config = loadConfig({
  ...process.env,
  API_KEY: 'b'.repeat(32),
  DATA_DIR: dir,
  STORAGE_ENCRYPTION_KEY: 'bench-storage-key-0123456789abcdefghij',
});

let received = 0;
let onReceived: (() => void) | undefined;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end('ok');
    onReceived?.();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const db = openDatabase(dir);
const store = createSqliteStore(db);
const { notifications, webhookEvents: events } = store.repos;
const secrets = createSecretBox(config.storageEncryptionKey);
const signal = createWakeSignal();
const now = new Date().toISOString();
await notifications.insertIfAbsent({
  id: 'bench',
  type: 'webhook',
  url,
  signing_key: secrets.seal(SIGNING_KEY, 'bench'),
  seed_hash: null,
  created_at: now,
  updated_at: now,
});
db.prepare(
  `INSERT INTO relayers (id, name, network, network_type, signer_id, address, notification_id, created_at, updated_at)
   VALUES ('bench-relayer', 'bench', 'sepolia', 'evm', 'dev-evm-signer', '0x0', 'bench', ?, ?)`,
).run(now, now);
const outbox = createOutbox({ signal });
const dispatcher = createWebhookDispatcher({
  events,
  notifications,
  secrets,
  settings: config.webhooks,
  logger: pino({ level: 'warn' }),
  signal,
});
dispatcher.start();

function record(i: number): TransactionRecord {
  return {
    id: `tx-${i}`,
    relayer_id: 'bench-relayer',
    status: 'pending',
    status_reason: null,
    created_at: now,
    sent_at: null,
    confirmed_at: null,
    from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: '1000000000000000000',
    gas_limit: 21000,
    gas_price: '2000000000',
    nonce: i,
    hash: '0x' + 'ab'.repeat(32),
    speed: 'fast',
  };
}

/** Writes `count` events (one SQLite transaction per `batch`), resolves when the receiver has them all. */
async function run(label: string, count: number, batch: number): Promise<void> {
  const target = received + count;
  const done = new Promise<void>((resolve) => {
    onReceived = () => received >= target && resolve();
  });
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i += batch) {
    await store.atomically(async (tx) => {
      for (let j = i; j < Math.min(count, i + batch); j++) await outbox.transactionChanged(tx, record(seq++));
    });
    if (batch < count) await new Promise((r) => setImmediate(r));
  }
  await done;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(
    `${label.padEnd(44)} ${String(count).padStart(6)} events  ${ms.toFixed(0).padStart(6)} ms  ${Math.round(
      (count / ms) * 1000,
    )
      .toString()
      .padStart(6)} events/s`,
  );
}

let seq = 0;
console.log(
  `node ${process.version}, concurrency ${config.webhooks.concurrency}, signed (HMAC-SHA256, key sealed at rest)`,
);
await run('warm-up', 500, 500);
await run('burst: 1,000 events in one transaction', 1_000, 1_000);
await run('burst: 1,000 events in one transaction', 1_000, 1_000);
await run('sustained: 10,000 events, 100 per transaction', 10_000, 100);
await run('one event per transaction, 2,000 events', 2_000, 1);

await dispatcher.close();
await store.close();
server.close();
server.closeAllConnections();
rmSync(dir, { recursive: true, force: true });
