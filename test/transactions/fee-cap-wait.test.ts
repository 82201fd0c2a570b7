// Fee ceilings that never jam, on a real anvil whose next base fee is pushed far above the relayer's gas_price_cap:
// a transaction re-priced up to the cap waits there (said once: one status_reason, one transaction_update event, one
// count), leaves the wait by itself when fees fall, and ends expired through a NOOP when its valid_until passes
// meanwhile. Without valid_until it expires 8 hours after its creation, as in the reference.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil, waitInPool } from '../support/anvil.ts';
import { waitFor } from './lifecycle/support.ts';

const GWEI = 1_000_000_000n;
const CAP = 10n * GWEI;
const HIGH_BASE_FEE = 50n * CAP;
const LOW_BASE_FEE = GWEI;
const TO = ANVIL_ADDRESSES[2]!;
const path = (id = '') => `/api/v1/relayers/relay/transactions/${id}`;
/** Explicit prices under the cap: accepted into the pool before fees rise. */
const belowCap = {
  to: TO,
  value: 1,
  max_fee_per_gas: String((CAP * 8n) / 10n),
  max_priority_fee_per_gas: String(GWEI),
};
const WAITING =
  /^waiting at the fee cap: the network asks \d+ wei per gas, above the relayer's gas_price_cap of 10000000000 wei/;

const anvil = await startAnvil();
after(() => anvil.stop());

function start(t: Parameters<typeof build>[0]): Promise<TestServer> {
  return build(t, {
    config: {
      networks: [anvil.network('anvil', { resubmit_timeout_ms: 300 })],
      signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[0] }],
      relayers: [
        {
          id: 'relay',
          name: 'capped',
          network: 'anvil',
          signer_id: 'key',
          notification_id: 'hook',
          policies: { gas_price_cap: Number(CAP) },
        },
      ],
      // Nothing listens: the events stay in the store, where the test counts them.
      notifications: [{ id: 'hook', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
      plugins: [],
    },
  });
}

const get = async (s: TestServer, id: string) => (await s.request('GET', path(id))).body.data as Record<string, any>;
const waitRecord = (s: TestServer, id: string, done: (r: Record<string, any>) => boolean, what: string) =>
  waitFor(() => get(s, id), done, 30_000, what);
const reasons = (s: TestServer, id: string) =>
  (
    s.app.db
      .prepare('SELECT body FROM webhook_events WHERE transaction_id = ? ORDER BY seq')
      .pluck()
      .all(id) as string[]
  ).map((b) => JSON.parse(b).payload.status_reason as string | null);
const waitsCounted = async (s: TestServer) =>
  Number(
    /relaybox_transaction_fee_cap_waits_total\{network="anvil"\} (\d+)/.exec(
      (await s.request('GET', '/metrics')).text,
    )?.[1] ?? 0,
  );

/** Sent under the cap with automine off (it sits in the pool), then the next base fee pushed far above the cap. */
async function waitingAtCap(s: TestServer, body: Record<string, unknown>): Promise<Record<string, any>> {
  await anvil.setAutomine(false);
  const res = await s.request('POST', path(), { body });
  assert.equal(res.status, 200, res.text);
  await waitRecord(s, res.body.data.id, (r) => r.status === 'submitted', 'submitted');
  await anvil.setNextBaseFee(HIGH_BASE_FEE);
  return waitRecord(s, res.body.data.id, (r) => WAITING.test(r.status_reason ?? ''), 'waiting at the fee cap');
}

test('at the cap: no more re-pricing, one reason, one event, one count; it leaves the wait by itself when fees fall, then confirms', async (t) => {
  const s = await start(t);
  t.after(() => anvil.setAutomine(true));
  const waiting = await waitingAtCap(s, belowCap);
  assert.equal(waiting.max_fee_per_gas, String(CAP), 're-priced up to the cap, not above');
  // The check runs about twice a second: give it several runs to re-price or re-announce, which it must not.
  await sleep(2_000);
  const still = await get(s, waiting.id);
  assert.deepEqual(still.hashes, waiting.hashes, 'no version signed while at the cap');
  assert.equal(
    reasons(s, waiting.id).filter((r) => WAITING.test(r ?? '')).length,
    1,
    'one transaction_update says it waits',
  );
  assert.equal(await waitsCounted(s), 1);

  // Fees fall (nothing mined yet): the check sees the network's price back under the cap and says so.
  await anvil.setNextBaseFee(LOW_BASE_FEE);
  const left = await waitRecord(s, waiting.id, (r) => r.status_reason === null, 'the wait left');
  assert.equal(left.status, 'submitted');
  await anvil.setAutomine(true);
  await anvil.mine(1);
  const done = await waitRecord(s, waiting.id, (r) => r.status === 'confirmed', 'confirmed');
  assert.equal(done.status_reason, null);
  assert.equal(await waitsCounted(s), 1);
});

test('waiting at the cap when valid_until passes: a NOOP replaces it, and it ends expired once fees fall', async (t) => {
  const s = await start(t);
  t.after(() => anvil.setAutomine(true));
  const waiting = await waitingAtCap(s, { ...belowCap, valid_until: new Date(Date.now() + 6_000).toISOString() });
  const noop = await waitRecord(s, waiting.id, (r) => r.noop_hashes.length === 1, 'the expiry NOOP');
  assert.match(noop.status_reason, /valid_until passed/);
  assert.ok(BigInt(noop.max_fee_per_gas) <= CAP);
  await anvil.setNextBaseFee(LOW_BASE_FEE);
  // The NOOP in the node's pool (it replaced the first version, still held there) before a block is mined.
  await waitInPool(anvil, noop.noop_hashes[0]);
  await anvil.setAutomine(true);
  await anvil.mine(1);
  const done = await waitRecord(s, waiting.id, (r) => ['confirmed', 'expired'].includes(r.status), 'final');
  assert.equal(done.status, 'expired');
  assert.equal(done.hash, done.noop_hashes[0]);
});

test('without valid_until, a transaction not mined 8 hours after its creation is replaced by a NOOP and ends expired', async (t) => {
  const s = await start(t);
  t.after(() => anvil.setAutomine(true));
  await anvil.setAutomine(false);
  const res = await s.request('POST', path(), { body: belowCap });
  assert.equal(res.status, 200, res.text);
  const id = res.body.data.id;
  assert.equal(res.body.data.valid_until, null, 'the record keeps valid_until null, as the reference does');
  await waitRecord(s, id, (r) => r.status === 'submitted', 'submitted');
  // Its creation moved 8 hours and a minute into the past (the store holds the record as JSON).
  const created = new Date(Date.now() - 8 * 3_600_000 - 60_000).toISOString();
  s.app.db
    .prepare("UPDATE transactions SET record = json_set(record, '$.created_at', ?) WHERE id = ?")
    .run(created, id);
  const noop = await waitRecord(s, id, (r) => r.noop_hashes.length === 1, 'the expiry NOOP');
  assert.match(noop.status_reason, /not mined within 8 hours/);
  await waitInPool(anvil, noop.noop_hashes[0]);
  await anvil.setAutomine(true);
  await anvil.mine(1);
  const done = await waitRecord(s, id, (r) => ['confirmed', 'expired'].includes(r.status), 'final');
  assert.equal(done.status, 'expired');
});
