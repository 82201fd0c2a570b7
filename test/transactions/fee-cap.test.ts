// The relayer's gas_price_cap binds every signature it makes, against a real anvil whose fees are pushed far above
// the cap: send, replace, re-price, re-broadcast with new fees, expiry NOOP, cancel NOOP, gap fill. The relayer
// reaches anvil through a forwarding recorder, so every signed transaction it hands to the node is looked at (the
// ones anvil refuses below its base fee too, which eth_getTransactionByHash would not know). Each test then lowers
// the fees and waits for its transaction to end final: while at the cap it was still in the check's care.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, parseTransaction, type Hex } from 'viem';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import type { NetworkConfig } from '../../src/config/config.ts';
import { FINAL_STATUSES } from '../../src/domain/types.ts';
import { waitFor } from './lifecycle/support.ts';

const GWEI = 1_000_000_000n;
const CAP = 10n * GWEI;
/** The next block's base fee while a test runs: 50× the cap, so the network's `fast` price is about 100× it. */
const HIGH_BASE_FEE = 50n * CAP;
const LOW_BASE_FEE = GWEI;
const RELAYER_ADDRESS = ANVIL_ADDRESSES[0]!;
const TO = ANVIL_ADDRESSES[2]!;
const path = (id = '') => `/api/v1/relayers/relay/transactions/${id}`;
/** Explicit prices under the cap (and above anvil's 1 gwei base fee): accepted into the pool before fees rise. */
const belowCap = {
  to: TO,
  value: 1,
  max_fee_per_gas: String((CAP * 8n) / 10n),
  max_priority_fee_per_gas: String(GWEI),
};

const anvil = await startAnvil();
after(() => anvil.stop());
const node = await recorder(anvil.url);
after(() => node.close());

/** A JSON-RPC forwarder to `target` that keeps every raw transaction sent through it (single or batched calls). */
async function recorder(target: string) {
  const raws: Hex[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      try {
        const calls = [JSON.parse(body)].flat() as Array<{ method?: string; params?: unknown[] }>;
        for (const c of calls) if (c.method === 'eth_sendRawTransaction') raws.push(c.params![0] as Hex);
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    raws,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

function start(t: Parameters<typeof build>[0], network: Partial<NetworkConfig> = {}): Promise<TestServer> {
  return build(t, {
    config: {
      // Re-pricing waits an hour unless a test says otherwise: only the path under test signs. Fee suggestions are
      // read afresh (1 ms cache): the relayer's balance watch also reads them, and one read just before a test raises
      // the base fee must not price the path under test. Half-second blocks: the check runs every 250 ms, so the
      // re-broadcasts each test waits for come twice as fast (their count is what is asserted, not their pace).
      networks: [
        anvil.network('anvil', {
          rpc_urls: [{ url: node.url, weight: 100 }],
          resubmit_timeout_ms: 3_600_000,
          gas_price_cache: { enabled: true, stale_after_ms: 1 },
          average_blocktime_ms: 500,
          ...network,
        }),
      ],
      signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[0] }],
      relayers: [
        { id: 'relay', name: 'capped', network: 'anvil', signer_id: 'key', policies: { gas_price_cap: Number(CAP) } },
      ],
      notifications: [],
      plugins: [],
    },
  });
}

/** Every raw transaction the relayer broadcast since `from`, decoded: each offers at most `cap` (tip ≤ max fee). */
function assertAllUnderCap(from: number, cap = CAP): Array<{ hash: Hex; to: Hex | undefined; top: bigint }> {
  const sent = node.raws.slice(from).map((raw) => ({ hash: keccak256(raw), tx: parseTransaction(raw) }));
  assert.ok(sent.length > 0, 'the relayer broadcast something');
  return sent.map(({ hash, tx }) => {
    const top = tx.maxFeePerGas ?? tx.gasPrice!;
    assert.ok(top <= cap, `${hash} (nonce ${tx.nonce}) offers ${top} wei per gas, above the cap of ${cap}`);
    if (tx.maxPriorityFeePerGas !== undefined)
      assert.ok(tx.maxPriorityFeePerGas <= top, `${hash}: tip above the max fee`);
    return { hash, to: tx.to ?? undefined, top };
  });
}

/**
 * Every version in the record was among the broadcasts looked at. A version is recorded before its broadcast
 * completes, so the recorder is given time to see it (on a loaded machine it may lag the record).
 */
async function assertVersionsSeen(record: Record<string, any>, from: number): Promise<void> {
  const hashes = record.hashes as Hex[];
  const broadcast = () => new Set(node.raws.slice(from).map((raw) => keccak256(raw)));
  await waitFor(
    async () => broadcast(),
    (seen) => hashes.every((h) => seen.has(h)),
    10_000,
    "the record's versions among the broadcasts",
  ).catch(() => undefined);
  const seen = new Set(assertAllUnderCap(from).map((s) => s.hash));
  for (const h of hashes) assert.ok(seen.has(h), `version ${h} was never broadcast through the recorder`);
}

const get = async (s: TestServer, id: string) => (await s.request('GET', path(id))).body.data as Record<string, any>;
const waitRecord = (s: TestServer, id: string, done: (r: Record<string, any>) => boolean, what: string) =>
  waitFor(() => get(s, id), done, 60_000, what);
/** Broadcasts (of anything) after `count` have happened: the check ran again since. */
const waitBroadcasts = (count: number) =>
  waitFor(
    async () => node.raws.length,
    (n) => n >= count,
    60_000,
    `${count} broadcasts`,
  );

/** Fees pushed above the cap with automine off while `fn` runs; then back low, mining again, and `id()` ends final. */
async function highFees(s: TestServer, fn: () => Promise<void>, id: () => string): Promise<Record<string, any>> {
  await anvil.setAutomine(false);
  try {
    await fn();
  } finally {
    await anvil.setNextBaseFee(LOW_BASE_FEE);
    await anvil.setAutomine(true);
  }
  // Interval mining while it settles: whichever version the node holds is mined, and the check sees the depth.
  await anvil.setIntervalMining(1000);
  try {
    return await waitRecord(s, id(), (r) => FINAL_STATUSES.has(r.status), 'a final status once fees fell');
  } finally {
    await anvil.setIntervalMining(0);
    await anvil.setAutomine(true);
  }
}

/** Sent under the cap, accepted into the pool (automine off), then the next block's base fee pushed far above the cap. */
async function inPoolThenHighFees(
  s: TestServer,
  body: Record<string, unknown> = belowCap,
): Promise<Record<string, any>> {
  const res = await s.request('POST', path(), { body });
  assert.equal(res.status, 200, res.text);
  await waitRecord(s, res.body.data.id, (r) => r.status === 'submitted', 'submitted');
  await anvil.setNextBaseFee(HIGH_BASE_FEE);
  return res.body.data;
}

test('send: a speed price far above the cap is signed at the cap, and only re-broadcast while fees stay high', async (t) => {
  const s = await start(t);
  const from = node.raws.length;
  let id = '';
  const done = await highFees(
    s,
    async () => {
      await anvil.setNextBaseFee(HIGH_BASE_FEE);
      const res = await s.request('POST', path(), { body: { to: TO, value: 1, speed: 'fast' } });
      assert.equal(res.status, 200, res.text);
      id = res.body.data.id;
      assert.equal(res.body.data.max_fee_per_gas, String(CAP));
      // The node refuses it below its base fee; the check broadcasts it again, and asks for no higher price.
      await waitBroadcasts(from + 3);
      const r = await get(s, id);
      assert.deepEqual(r.hashes, [res.body.data.hash], 'no second signature at the cap');
      assert.equal(new Set(node.raws.slice(from)).size, 1, 'the same signed transaction each time');
    },
    () => id,
  );
  await assertVersionsSeen(done, from);
});

test('replace: a speed replacement is signed at the cap, an explicit price above it refused', async (t) => {
  const s = await start(t);
  const from = node.raws.length;
  let id = '';
  await highFees(
    s,
    async () => {
      id = (await inPoolThenHighFees(s)).id;
      const above = await s.request('PUT', path(id), { body: { ...belowCap, max_fee_per_gas: String(CAP + 1n) } });
      assert.equal(above.status, 400, above.text);
      const res = await s.request('PUT', path(id), { body: { to: TO, value: 2, speed: 'fast' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.max_fee_per_gas, String(CAP));
      await waitBroadcasts(from + 3);
      await assertVersionsSeen(await get(s, id), from);
    },
    () => id,
  );
  assertAllUnderCap(from);
});

test('re-price: after resubmit_timeout_ms the bump stops at the cap, however high the network price', async (t) => {
  const s = await start(t, { resubmit_timeout_ms: 300 });
  const from = node.raws.length;
  let id = '';
  await highFees(
    s,
    async () => {
      id = (await inPoolThenHighFees(s)).id;
      const repriced = await waitRecord(s, id, (r) => r.hashes.length >= 2, 'a re-priced version');
      assert.equal(repriced.max_fee_per_gas, String(CAP), 'clamped to the cap');
      // More runs past the timeout: the version at the cap goes out again as it is, nothing newer is signed.
      await waitBroadcasts(node.raws.length + 3);
      assert.deepEqual((await get(s, id)).hashes, repriced.hashes);
      await assertVersionsSeen(repriced, from);
    },
    () => id,
  );
  assertAllUnderCap(from);
});

test('re-broadcast with new fees: a dropped transaction the node wants priced higher is re-signed at most at the cap', async (t) => {
  const s = await start(t);
  const from = node.raws.length;
  let id = '';
  await highFees(
    s,
    async () => {
      const sent = await inPoolThenHighFees(s);
      id = sent.id;
      await anvil.dropTransaction(sent.hash);
      const repriced = await waitRecord(s, id, (r) => r.hashes.length >= 2, 'a version priced for the node');
      assert.equal(repriced.max_fee_per_gas, String(CAP));
      await waitBroadcasts(node.raws.length + 3);
      assert.deepEqual(
        (await get(s, id)).hashes,
        repriced.hashes,
        'refused at the cap: broadcast again, not re-signed higher',
      );
    },
    () => id,
  );
  assertAllUnderCap(from);
});

test('expiry NOOP: valid_until passed with fees above the cap: the NOOP is priced at the cap', async (t) => {
  const s = await start(t);
  const from = node.raws.length;
  let id = '';
  await highFees(
    s,
    async () => {
      // Time enough to be in the pool before the fees rise (a slow machine included).
      id = (await inPoolThenHighFees(s, { ...belowCap, valid_until: new Date(Date.now() + 8_000).toISOString() })).id;
      const expiring = await waitRecord(s, id, (r) => r.noop_hashes.length >= 1, 'a NOOP for the expired transaction');
      assert.equal(expiring.max_fee_per_gas, String(CAP));
      await assertVersionsSeen(expiring, from);
    },
    () => id,
  );
  assertAllUnderCap(from);
});

test('cancel NOOP: a cancel with fees above the cap signs its NOOP at the cap, and it stays tracked', async (t) => {
  const s = await start(t);
  const from = node.raws.length;
  let id = '';
  await highFees(
    s,
    async () => {
      id = (await inPoolThenHighFees(s)).id;
      const res = await s.request('DELETE', path(id));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.max_fee_per_gas, String(CAP));
      await waitBroadcasts(from + 3);
      await assertVersionsSeen(await get(s, id), from);
    },
    () => id,
  );
  assertAllUnderCap(from);
});

test('gap fill: NOOPs for unused nonces below a send are priced at most at the cap', async (t) => {
  const chainNonce = await anvil.pendingNonce(RELAYER_ADDRESS);
  const s = await start(t);
  // As if two sends had been recorded and never reached the chain: the check fills their nonces.
  s.app.db.prepare('UPDATE relayers SET next_nonce = ? WHERE id = ?').run(chainNonce + 2, 'relay');
  const from = node.raws.length;
  let id = '';
  const done = await highFees(
    s,
    async () => {
      await anvil.setNextBaseFee(HIGH_BASE_FEE);
      const res = await s.request('POST', path(), { body: { to: TO, value: 1, speed: 'fast' } });
      assert.equal(res.status, 200, res.text);
      id = res.body.data.id;
      const noops = () => assertAllUnderCap(from).filter((b) => b.to?.toLowerCase() === RELAYER_ADDRESS.toLowerCase());
      await waitFor(
        async () => noops().length,
        (n) => n >= 2,
        60_000,
        'NOOPs for the two gaps',
      );
    },
    () => id,
  );
  assert.equal(done.status, 'confirmed');
  assert.equal(await anvil.pendingNonce(RELAYER_ADDRESS), chainNonce + 3, 'the gaps were filled');
  assertAllUnderCap(from);
});

test('re-nonce: a cap lowered since the send binds the version re-signed under a new nonce', async (t) => {
  const s = await start(t);
  const lowered = CAP / 2n;
  let id = '';
  await anvil.setAutomine(false);
  let from = 0;
  try {
    const sent = (await s.request('POST', path(), { body: belowCap })).body.data;
    id = sent.id;
    await waitRecord(s, id, (r) => r.status === 'submitted', 'submitted');
    const patched = await s.request('PATCH', '/api/v1/relayers/relay', {
      body: { policies: { gas_price_cap: Number(lowered) } },
    });
    assert.equal(patched.status, 200, patched.text);
    from = node.raws.length;
    // A transaction from elsewhere takes its nonce and is mined: ours is re-signed with the next one.
    const outside = await anvil.sendFrom(ANVIL_KEYS[0], {
      nonce: sent.nonce,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 50n * GWEI,
      value: 7n,
    });
    await anvil.mine(1);
    await anvil.waitMined(outside);
    const renonced = await waitRecord(s, id, (r) => r.nonce !== sent.nonce, 'the re-nonced transaction');
    assert.equal(renonced.max_fee_per_gas, String(lowered));
  } finally {
    await anvil.setAutomine(true);
  }
  await anvil.mine(1);
  await waitRecord(s, id, (r) => FINAL_STATUSES.has(r.status), 'final');
  assertAllUnderCap(from, lowered);
});
