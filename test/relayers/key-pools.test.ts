// Issue 44: key pools on a real anvil, through the HTTP API. One relayer id with three keys (`signer_ids`): sends
// spread over the keys, each key with its own nonces from 0; a key's in-flight limit (`max_pending_per_key`) is held
// and, every key full, the answer says why key by key; a key whose balance is drained while its sends are in flight
// leaves the routing (`relayer_lane_state`), the others take the sends, and once funded again its own sends end
// final and it comes back. On PostgreSQL, two instances sending on one pool never take one key's nonce twice.
import { test, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { Configuration, RelayersApi } from '@openzeppelin/relayer-sdk';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { startAnvil } from '../support/anvil.ts';
import { eventually } from '../support/eventually.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { waitAllFinal } from '../transactions/wait-final.ts';
import { FAST_WEBHOOKS, startReceiver } from '../webhooks/support.ts';
import { faultySigners } from '../support/signer-faults.ts';
import type { SignerResolver } from '../../src/domain/signers/ports.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const pgSkip = (await postgresReachable()) ? false : 'no PostgreSQL at 127.0.0.1:5432';

const ETH = 10n ** 18n;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const POOL = 'pool';
const SEND = { to: TO, value: 1, gas_price: 2_000_000_000, gas_limit: 21_000 };
const txPath = (id = '') => `/api/v1/relayers/${POOL}/transactions/${id}`;

let made = 0;
/** `n` keys of their own (anvil's accounts are shared by the file), each funded with `wei`. */
async function keys(n: number, wei = ETH): Promise<Array<{ key: `0x${string}`; address: `0x${string}` }>> {
  const out = [];
  for (let k = 0; k < n; k++) {
    const key = `0x${(0x9001_0000 + ++made).toString(16).padStart(64, '0')}` as const;
    const address = privateKeyToAccount(key).address;
    await setBalance(address, wei);
    out.push({ key, address });
  }
  return out;
}
const setBalance = (address: string, wei: bigint) => anvil.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);

async function startPool(
  t: TestContext,
  pool: Array<{ key: string }>,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
  plugins?: Record<string, string>,
  hookUrl?: string,
  network: Record<string, unknown> = {},
  resolveSigner?: SignerResolver,
): Promise<TestServer> {
  return build(t, {
    ...(resolveSigner ? { resolveSigner } : {}),
    env: hookUrl ? { ...FAST_WEBHOOKS, ...env } : env,
    ...(plugins ? { plugins } : {}),
    config: {
      networks: [anvil.network('anvil', network)],
      signers: pool.map((p, k) => ({ id: `key-${k}`, type: 'local', development: true, private_key: p.key })),
      relayers: [
        {
          id: POOL,
          name: 'pool',
          network: 'anvil',
          signer_ids: pool.map((_, k) => `key-${k}`),
          ...(hookUrl ? { notification_id: 'hook' } : {}),
          ...extra,
        },
      ],
      notifications: hookUrl ? [{ id: 'hook', type: 'webhook', url: hookUrl }] : [],
      plugins: [],
    } as never,
  });
}

const sendAll = (s: TestServer, n: number) =>
  Promise.all(Array.from({ length: n }, () => s.request('POST', txPath(), { body: SEND })));
const lanesOf = async (s: TestServer) =>
  (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data.lanes as Array<Record<string, any>>;

/** Each key's nonces, as the records say: from 0, contiguous, none twice. */
function assertNoncesPerKey(
  records: Array<{ from: string; nonce: number }>,
  addresses: string[],
): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const r of records) byKey.set(r.from, [...(byKey.get(r.from) ?? []), r.nonce]);
  for (const from of byKey.keys()) assert.ok(addresses.includes(from), `a send came from ${from}, no key of the pool`);
  for (const [from, nonces] of byKey)
    assert.deepEqual(
      [...nonces].sort((a, b) => a - b),
      nonces.map((_, n) => n),
      `${from}: nonces ${nonces.join(', ')}`,
    );
  return byKey;
}

test('a pool of three keys spreads its sends over them, each key with its own nonces; the record lists every lane', async (t) => {
  const pool = await keys(3);
  const s = await startPool(t, pool);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const answers = await sendAll(s, 9);
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const byKey = assertNoncesPerKey(
    answers.map((r) => r.body.data),
    pool.map((p) => p.address),
  );
  assert.equal(byKey.size, 3, 'every key took sends');
  for (const [from, nonces] of byKey) assert.ok(nonces.length >= 2, `${from} took ${nonces.length} of 9`);

  const relayer = (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data;
  assert.equal(relayer.signer_id, 'key-0');
  assert.equal(relayer.address, pool[0]!.address);
  assert.deepEqual(
    relayer.lanes.map((l: any) => [l.address, l.signer_id, l.max_pending]),
    pool.map((p, k) => [p.address, `key-${k}`, 16]),
  );
  assert.equal(
    relayer.lanes.reduce((n: number, l: any) => n + l.pending, 0),
    9,
  );
  for (const l of relayer.lanes) assert.match(l.balance, /^\d+$/);

  await anvil.setAutomine(true);
  await anvil.mine();
  const final = await waitAllFinal(
    s,
    POOL,
    answers.map((r) => r.body.data.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
  // Listing and lookups see the pool's transactions under its one id.
  const listed = await s.request('GET', `${txPath()}?per_page=50`);
  assert.equal(listed.body.pagination.total_items, 9);
});

test('max_pending_per_key bounds each key; every key full, the answer says why key by key', async (t) => {
  const pool = await keys(3);
  const s = await startPool(t, pool, { max_pending_per_key: 2 });
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const answers = [];
  for (let k = 0; k < 6; k++) answers.push(await s.request('POST', txPath(), { body: SEND }));
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const byKey = assertNoncesPerKey(
    answers.map((r) => r.body.data),
    pool.map((p) => p.address),
  );
  for (const nonces of byKey.values()) assert.equal(nonces.length, 2);

  const refused = await s.request('POST', txPath(), { body: SEND });
  assert.equal(refused.status, 503, refused.text);
  assert.equal(refused.body.message, 'Service Unavailable');
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.match(refused.body.error, new RegExp(`^no key of relayer '${POOL}' can take this transaction now: `));
  for (const p of pool)
    assert.match(
      refused.body.error,
      new RegExp(`${p.address}: (2 of 2 pending \\(max_pending_per_key\\)|its max_pending_per_key was reached)`),
    );

  await anvil.setAutomine(true);
  await anvil.mine();
  await waitAllFinal(
    s,
    POOL,
    answers.map((r) => r.body.data.id),
  );
  // Room again: a send is taken.
  const again = await eventually(
    async () => {
      const r = await s.request('POST', txPath(), { body: SEND });
      return r.status === 200 ? r : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.equal(again!.status, 200);
});

test('a key drained while its sends are in flight leaves the routing; once funded its sends end final and it comes back', async (t) => {
  const pool = await keys(3);
  const jammed = pool[2]!;
  const receiver = await startReceiver(t);
  const s = await startPool(t, pool, { max_pending_per_key: 3 }, {}, undefined, receiver.url);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const first = [];
  for (let k = 0; k < 6; k++) first.push(await s.request('POST', txPath(), { body: SEND }));
  for (const r of first) assert.equal(r.status, 200, r.text);
  const onJammed = first.filter((r) => r.body.data.from === jammed.address).map((r) => r.body.data.id as string);
  assert.equal(onJammed.length, 2);
  // Its balance gone: what it has in flight cannot be mined.
  await setBalance(jammed.address, 0n);
  await anvil.setAutomine(true);
  await anvil.mine();
  const lane = await eventually(
    async () => (await lanesOf(s)).find((l) => l.address === jammed.address && l.state === 'low_balance'),
    { timeoutMs: 30_000 },
  );
  assert.match(lane!.state_reason, /^balance 0 wei is under what its unmined transactions hold/);
  // The other keys' first sends are mined and recorded so (on a loaded machine the check can lag the block): each of
  // those keys has its whole limit free again.
  await waitAllFinal(
    s,
    POOL,
    first.filter((r) => r.body.data.from !== jammed.address).map((r) => r.body.data.id),
  );

  // Routed around: the other keys fill up to their limit (3 each) although the drained one has room for one more;
  // then it is tried last, refuses for its funds, and the answer says why key by key.
  await anvil.setAutomine(false);
  const more = [];
  for (let k = 0; k < 6; k++) more.push(await s.request('POST', txPath(), { body: SEND }));
  for (const r of more) assert.equal(r.status, 200, r.text);
  for (const r of more) assert.notEqual(r.body.data.from, jammed.address);
  const none = await s.request('POST', txPath(), { body: SEND });
  assert.equal(none.status, 503, none.text);
  assert.match(
    none.body.error,
    new RegExp(`${jammed.address}: Insufficient balance: Relayer balance 0 is insufficient`),
  );
  for (const p of pool.slice(0, 2))
    assert.match(none.body.error, new RegExp(`${p.address}: (3 of 3 pending|its max_pending_per_key was reached)`));
  for (const id of onJammed)
    assert.ok(['sent', 'submitted'].includes((await s.request('GET', txPath(id))).body.data.status));
  await anvil.setAutomine(true);
  await anvil.mine();
  await waitAllFinal(
    s,
    POOL,
    more.map((r) => r.body.data.id),
  );

  await setBalance(jammed.address, ETH);
  const final = await waitAllFinal(s, POOL, onJammed, 60_000);
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
  await eventually(async () => (await lanesOf(s)).find((l) => l.address === jammed.address && l.state === 'active'), {
    timeoutMs: 30_000,
  });
  const lanes = await lanesOf(s);
  assert.ok(
    lanes.every((l) => l.state === 'active'),
    JSON.stringify(lanes),
  );

  // Said twice to the relayer's notification: out of the routing, then back; and in the lane metrics.
  const events = (await eventually(
    () => {
      const got = receiver.received.map((r) => r.body).filter((b) => b?.event === 'relayer_lane_state');
      return got.length >= 2 ? got : undefined;
    },
    { timeoutMs: 30_000 },
  ))!;
  assert.deepEqual(
    events.map((e: any) => [e.payload.address, e.payload.previous_state, e.payload.state, e.payload.in_routing]),
    [
      [jammed.address, 'active', 'low_balance', false],
      [jammed.address, 'low_balance', 'active', true],
    ],
  );
  assert.equal(events[0].payload.payload_type, 'relayer_lane_state');
  assert.equal(events[0].payload.relayer_id, POOL);
  const metrics = (await s.request('GET', '/metrics')).text;
  assert.match(
    metrics,
    new RegExp(
      `^relaybox_relayer_lane_state\\{relayer="${POOL}",address="${jammed.address}",state="active"\\} 1$`,
      'm',
    ),
  );
  for (const p of pool)
    assert.match(
      metrics,
      new RegExp(`^relaybox_relayer_lane_sends_total\\{relayer="${POOL}",address="${p.address}"\\} [1-9]`, 'm'),
    );
});

test('a relayer with one signer keeps the reference shape: no lanes field', async (t) => {
  const [one] = await keys(1);
  const s = await startPool(t, [one!]);
  const relayer = (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data;
  assert.equal(relayer.signer_id, 'key-0');
  assert.equal('lanes' in relayer, false);
  const sent = await s.request('POST', txPath(), { body: SEND });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.from, one!.address);
});

test("PostgreSQL: two instances sending on one pool never take a key's nonce twice, and every key takes sends", {
  skip: pgSkip,
}, async (t) => {
  const pool = await keys(3);
  const env = { DATABASE_URL: (await createTestDatabase('relaybox_pools')).url };
  const a = await startPool(t, pool, {}, env);
  const b = await startPool(t, pool, {}, env);
  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, k) => (k % 2 ? a : b).request('POST', txPath(), { body: SEND })),
  );
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const byKey = assertNoncesPerKey(
    answers.map((r) => r.body.data),
    pool.map((p) => p.address),
  );
  assert.equal(byKey.size, 3, 'no key starved');
  const final = await waitAllFinal(
    a,
    POOL,
    answers.map((r) => r.body.data.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
  for (const p of pool) assert.equal(await anvil.pendingNonce(p.address), byKey.get(p.address)!.length);
  // Closed here: the database's drop (an after hook registered before theirs) must not cut them mid-close.
  await Promise.all([a.close(), b.close()]);
});

test("the reference's client sends on a pool and reads the pool's transactions under its one id", async (t) => {
  const pool = await keys(2);
  const s = await startPool(t, pool);
  const api = new RelayersApi(new Configuration({ basePath: s.url, accessToken: API_KEY }));
  const sent = [];
  for (let k = 0; k < 4; k++) sent.push((await api.sendTransaction(POOL, SEND as never)).data.data as any);
  assertNoncesPerKey(
    sent,
    pool.map((p) => p.address),
  );
  assert.equal(new Set(sent.map((r) => r.from)).size, 2, 'both keys took sends');
  const final = await waitAllFinal(
    s,
    POOL,
    sent.map((r) => r.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed');
  const read = await api.getTransactionById(POOL, sent[1].id);
  assert.equal((read.data.data as any).from, sent[1].from);
  const relayer = (await api.getRelayer(POOL)).data.data as any;
  assert.equal(relayer.lanes.length, 2);
});

const PLUGIN = `export async function handler({ api }) {
  const relayer = api.useRelayer('${POOL}');
  const tx = { to: '${TO}', value: 1, gas_price: 2000000000, gas_limit: 21000 };
  const sent = await Promise.all([1, 2, 3, 1, 2, 3].map((k) => relayer.sendTransaction(tx, { idempotencyKey: 'pool-order-' + k })));
  const done = await api.transactionWait(sent[0], { interval: 200, timeout: 30000 });
  return { sent: sent.map((t) => ({ id: t.id, from: t.from, nonce: t.nonce })), done: done.status };
}`;

test("a plugin's sendTransaction over a pool, with idempotency keys: one transaction per key, each on a key of the pool", async (t) => {
  const pool = await keys(3);
  const s = await startPool(t, pool, {}, {}, { 'pool-sender.ts': PLUGIN });
  const res = await s.request('POST', '/api/v1/plugins/pool-sender/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  const { sent, done } = res.body.data;
  assert.equal(done, 'confirmed');
  const ids = sent.map((x: any) => x.id);
  assert.deepEqual(ids.slice(3), ids.slice(0, 3), 'the same key answers the same transaction');
  assert.equal(new Set(ids).size, 3);
  assertNoncesPerKey(
    sent.slice(0, 3),
    pool.map((p) => p.address),
  );
  assert.equal((await s.request('GET', `${txPath()}?per_page=10`)).body.pagination.total_items, 3);
});

test('keys waiting at the fee cap leave the routing (the answer says so per key) and come back when fees fall', async (t) => {
  const GWEI = 1_000_000_000n;
  const CAP = 10n * GWEI;
  const pool = await keys(2);
  const s = await startPool(t, pool, { policies: { gas_price_cap: Number(CAP) } }, {}, undefined, undefined, {
    resubmit_timeout_ms: 300,
  });
  await anvil.setAutomine(false);
  t.after(async () => {
    await anvil.setNextBaseFee(GWEI);
    await anvil.setAutomine(true);
  });
  const belowCap = {
    to: TO,
    value: 1,
    max_fee_per_gas: String((CAP * 8n) / 10n),
    max_priority_fee_per_gas: String(GWEI),
  };
  const sent = [];
  for (let k = 0; k < 2; k++) sent.push(await s.request('POST', txPath(), { body: belowCap }));
  for (const r of sent) assert.equal(r.status, 200, r.text);
  assert.deepEqual(new Set(sent.map((r) => r.body.data.from)), new Set(pool.map((p) => p.address)));
  await anvil.setNextBaseFee(50n * CAP);
  const out = await eventually(
    async () => {
      const lanes = await lanesOf(s);
      return lanes.every((l) => l.state === 'fee_cap') ? lanes : undefined;
    },
    { timeoutMs: 30_000 },
  );
  for (const l of out!) assert.match(l.state_reason, /waits at the fee cap \(gas_price_cap\)$/);
  const refused = await s.request('POST', txPath(), { body: belowCap });
  assert.equal(refused.status, 503, refused.text);
  for (const p of pool)
    assert.match(refused.body.error, new RegExp(`${p.address}: transaction [0-9a-f-]+ waits at the fee cap`));

  await anvil.setNextBaseFee(GWEI);
  await eventually(async () => ((await lanesOf(s)).every((l) => l.state === 'active') ? true : undefined), {
    timeoutMs: 30_000,
  });
  const again = await s.request('POST', txPath(), { body: belowCap });
  assert.equal(again.status, 200, again.text);
  await anvil.setAutomine(true);
  await anvil.mine();
  const final = await waitAllFinal(
    s,
    POOL,
    [...sent, again].map((r) => r.body.data.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
});

test("a key whose signer fails passes the send to another key: the client gets its transaction, not the signer's 502", async (t) => {
  const pool = await keys(2);
  const { resolveSigner, faults } = faultySigners();
  const s = await startPool(t, pool, {}, {}, undefined, undefined, {}, resolveSigner);
  faults.failAfter(0);
  const sent = await s.request('POST', txPath(), { body: SEND });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.from, pool[1]!.address, 'the first key failed to sign: the second took it');
  assert.equal(sent.body.data.nonce, 0);
  // Both failing: the answer says so per key.
  faults.failAfter(0);
  faults.failAfter(1);
  const none = await s.request('POST', txPath(), { body: SEND });
  assert.equal(none.status, 503, none.text);
  for (const p of pool) assert.match(none.body.error, new RegExp(`${p.address}: its signer did not sign`));
  assert.doesNotMatch(none.body.error, /Throttling/, "the provider's text stays out of the answer");
  // The failed signatures took no nonce: the next sends of each key continue its sequence.
  const after = await sendAll(s, 2);
  for (const r of after) assert.equal(r.status, 200, r.text);
  assertNoncesPerKey(
    [sent, ...after].map((r) => r.body.data),
    pool.map((p) => p.address),
  );
});

test('a pool survives a restart on its store: each key goes on with its own nonces, in-flight sends picked up and final', async (t) => {
  const pool = await keys(3);
  const config = {
    networks: [anvil.network('anvil')],
    signers: pool.map((p, k) => ({ id: `key-${k}`, type: 'local', development: true, private_key: p.key })),
    relayers: [{ id: POOL, name: 'pool', network: 'anvil', signer_ids: pool.map((_, k) => `key-${k}`) }],
    notifications: [],
    plugins: [],
  } as never;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-pool-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await build(t, { config, dataDir });
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const before = await sendAll(first, 6);
  for (const r of before) assert.equal(r.status, 200, r.text);
  await first.close();
  // A key with sends in flight cannot leave the pool (nothing would track them), nor can the first key change.
  const file = config as unknown as { relayers: Array<Record<string, unknown>> };
  for (const signer_ids of [
    ['key-0', 'key-1'],
    ['key-1', 'key-0', 'key-2'],
  ]) {
    const edited = { ...file, relayers: [{ ...file.relayers[0], signer_ids }] } as never;
    // How the six sends spread over the keys depends on how they raced for them; the refusal names one key and the
    // number of its own sends in flight.
    await assert.rejects(build(t, { config: edited, dataDir }), (err: Error) => {
      const named =
        /key (0x[0-9a-fA-F]{40}) \(signer 'key-[0-2]'\) has (\d+) transaction\(s\) in flight; keep it in signer_ids/.exec(
          err.message,
        );
      assert.ok(named, err.message);
      const inFlight = before.filter(
        (r) => (r.body.data as { from: string }).from.toLowerCase() === named[1]!.toLowerCase(),
      ).length;
      assert.ok(inFlight > 0, `${named[1]} sent nothing before the restart`);
      assert.equal(Number(named[2]), inFlight, err.message);
      return true;
    });
  }
  const again = await build(t, { config, dataDir });
  const after = await sendAll(again, 6);
  for (const r of after) assert.equal(r.status, 200, r.text);
  const byKey = assertNoncesPerKey(
    [...before, ...after].map((r) => r.body.data),
    pool.map((p) => p.address),
  );
  assert.equal(byKey.size, 3);
  await anvil.setAutomine(true);
  await anvil.mine();
  const final = await waitAllFinal(
    again,
    POOL,
    [...before, ...after].map((r) => r.body.data.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
});
