// The `submitted` write after a broadcast (src/domain/transactions/evm/submit.ts), on a real SQLite store and a real
// anvil: an accepted broadcast is written `submitted` with its sent_at, and a record that moved on since (a newer
// version written by someone else) is left as it is.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keccak256, type Hex } from 'viem';
import { openDatabase } from '../../src/store/sqlite/db.ts';
import { createSqliteStore } from '../../src/store/sqlite/store.ts';
import { createRecordWriter } from '../../src/domain/transactions/record-writer.ts';
import { createOutbox } from '../../src/domain/webhooks/outbox.ts';
import { createEvmSubmitter } from '../../src/domain/transactions/evm/submit.ts';
import { createEvmChain } from '../../src/chains/evm/adapter.ts';
import type { EvmNetworkConfig } from '../../src/config/config.ts';
import type { StoredTransaction } from '../../src/domain/relayers/ports.ts';
import type { TransactionRecord } from '../../src/domain/types.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const chain = createEvmChain(anvil.network() as EvmNetworkConfig);
const KEY = ANVIL_KEYS[1]!;

async function setup(t: { after(fn: () => Promise<void> | void): void }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-submit-'));
  const db = openDatabase(dir);
  const store = createSqliteStore(db);
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.prepare(
    "INSERT INTO relayers (id, name, network, network_type, signer_id, address, created_at, updated_at) VALUES ('r', 'r', 'anvil', 'evm', 's', ?, 'x', 'x')",
  ).run(ANVIL_ADDRESSES[1]);
  const writer = createRecordWriter({ events: createOutbox() });
  const submitter = createEvmSubmitter({
    store,
    writer,
    logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
  });
  return { store, writer, submitter };
}

/** A `sent` record of a real signed transfer, as the send path inserts it (version 1). */
async function inserted(s: Awaited<ReturnType<typeof setup>>, nonce: number): Promise<StoredTransaction> {
  const raw = await anvil.signed(KEY, { nonce });
  const record = {
    id: `tx-${nonce}`,
    relayer_id: 'r',
    status: 'sent',
    status_reason: null,
    created_at: new Date().toISOString(),
    sent_at: null,
    confirmed_at: null,
    nonce,
    raw,
    hash: keccak256(raw),
    hashes: [keccak256(raw)],
  } as TransactionRecord;
  await s.store.atomically((tx) => s.writer.insert(tx, record, Date.now(), nonce, 'evm'));
  return { record, version: 1 };
}

test('a broadcast accepted at the version held is written submitted, with sent_at', async (t) => {
  const s = await setup(t);
  const nonce = await anvil.pendingNonce(ANVIL_ADDRESSES[1]!);
  const held = await inserted(s, nonce);
  const outcome = await s.submitter.submit(chain, held);
  assert.equal(outcome.status, 'submitted');
  const now = await s.store.repos.transactions.find(held.record.id);
  assert.equal(now?.version, 2);
  assert.equal(now?.record.status, 'submitted');
  assert.ok(now?.record.sent_at);
});

test('a record that moved on after its broadcast began is left as the newer writer wrote it', async (t) => {
  const s = await setup(t);
  const nonce = await anvil.pendingNonce(ANVIL_ADDRESSES[1]!);
  const held = await inserted(s, nonce);
  // Another writer (a replace) signed a newer version under the same nonce: version 2, another hash.
  const raw = await anvil.signed(KEY, { nonce, maxFeePerGas: 90_000_000_000n, maxPriorityFeePerGas: 5_000_000_000n });
  const newer = {
    ...held.record,
    raw,
    hash: keccak256(raw),
    hashes: [...(held.record as unknown as { hashes: Hex[] }).hashes, keccak256(raw)],
  } as TransactionRecord;
  const written = await s.store.atomically((tx) => s.writer.update(tx, held, newer, 'evm'));
  assert.equal(written?.version, 2);
  // The older version's broadcast answers after that: its `submitted` must not land on the newer version.
  await s.submitter.submit(chain, held);
  const now = await s.store.repos.transactions.find(held.record.id);
  assert.equal(now?.version, 2, 'nothing written over the newer version');
  assert.equal(now?.record.status, 'sent');
  assert.equal((now!.record as unknown as { hash: string }).hash, keccak256(raw));
});
