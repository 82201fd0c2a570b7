// Issue 40: nodes that take a transaction and never execute it. Each case reproduces the stall deterministically with a
// real anvil and, where a provider misbehaves, the fault proxy in front of it (test/support/rpc-proxy.ts):
// - a transaction held in anvil's `queued` pool although its nonce is next (anvil_setNonce puts it there, as the
//   automine race foundry-rs/foundry#10122 does by chance): every re-broadcast is answered "already known";
// - a provider listed first that answers every broadcast as accepted and forwards nothing, beside a healthy one;
// - the same provider alone: nothing can deliver, but it is marked unhealthy for broadcasts in status and readiness.
// On the code before issue 40 the first two never confirm (the check re-broadcast the same raw transaction forever).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { numberToHex, type Hex } from 'viem';
import { ANVIL_KEYS, startAnvil } from '../../support/anvil.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import type { TestServer } from '../../helper.ts';
import { buildOn, RELAYER, RELAYER_ADDRESS, TO, txPath, waitFor, waitStatus } from './support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const send = { to: TO, value: 1000, speed: 'fast' };
// Checks every 250 ms (half a block) instead of 500: the idle re-broadcasts before an escalation (10) and the
// resubmit timeout (10 blocks) keep their ratio, so the same path is taken, in half the wait.
const QUICK = { average_blocktime_ms: 500 };
const STUCK = [
  /the node holds it but does not include it: replacing/,
  /keeps answering "already known" but does not include it: replacing/,
];

const escalations = async (s: TestServer, cause: string) =>
  Number(
    new RegExp(`relaybox_evm_stuck_escalations_total\\{network="anvil",cause="${cause}"\\} (\\d+)`).exec(
      (await s.request('GET', '/metrics')).text,
    )?.[1] ?? 0,
  );

/**
 * The relayer's next send put in anvil's `queued` pool (its broadcasts held at `proxy` meanwhile): the account one
 * nonce back, the raw transaction sent, the nonce put back; nothing ever promotes it. `then` runs before the relayer's
 * broadcasts are let through. Returns the record as sent.
 */
async function sendHeldInQueue(
  s: TestServer,
  proxy: Awaited<ReturnType<typeof startRpcProxy>>,
  then?: (nonce: number) => Promise<void>,
) {
  const start = await anvil.pendingNonce(RELAYER_ADDRESS);
  proxy.hold('eth_sendRawTransaction');
  const sent = (await s.request('POST', txPath(), { body: send })).body.data;
  assert.equal(sent.nonce, start);
  await waitFor(
    async () => proxy.held(),
    (n) => n > 0,
    20_000,
    'the broadcast held at the proxy',
  );
  const raw = JSON.parse(
    s.app.db.prepare('SELECT record FROM transactions WHERE id = ?').pluck().get(sent.id) as string,
  ).raw as Hex;
  await anvil.rpc('anvil_setNonce', [RELAYER_ADDRESS, numberToHex(start - 1)]);
  await anvil.rpc('eth_sendRawTransaction', [raw]);
  await anvil.rpc('anvil_setNonce', [RELAYER_ADDRESS, numberToHex(start)]);
  await then?.(start);
  proxy.release();
  return sent;
}

/** Each of the relayer's nonces below the chain's is held by exactly one mined transaction. */
async function noncesUsedOnce(from: number, to: number): Promise<void> {
  const head = Number(await anvil.blockNumber());
  const seen = new Map<number, number>();
  for (let b = 0; b <= head; b++) {
    const block = await anvil.rpc<{ transactions: Array<{ from: Hex; nonce: Hex }> }>('eth_getBlockByNumber', [
      numberToHex(b),
      true,
    ]);
    for (const tx of block.transactions)
      if (tx.from.toLowerCase() === RELAYER_ADDRESS.toLowerCase())
        seen.set(Number(tx.nonce), (seen.get(Number(tx.nonce)) ?? 0) + 1);
  }
  for (let n = from; n < to; n++) assert.equal(seen.get(n), 1, `nonce ${n} used once on chain`);
}

test('a transaction the node holds in `queued` although its nonce is next is replaced, and mined', async (t) => {
  const proxy = await startRpcProxy(anvil.url);
  t.after(() => proxy.close());
  const s = await buildOn(t, anvil, { network: { ...QUICK, rpc_urls: [{ url: proxy.url, weight: 100 }] } });
  // One send mined first: the account needs a nonce to step back from.
  await waitStatus(s, (await s.request('POST', txPath(), { body: send })).body.data.id, ['confirmed']);
  // The account one nonce back: the transaction goes to `queued` (a gap below it); then the nonce is put back, and
  // nothing ever promotes it (anvil promotes on a mined predecessor only).
  const sent = await sendHeldInQueue(s, proxy);
  const start = sent.nonce as number;
  const pool = await anvil.txpool();
  assert.ok(
    pool.queued[RELAYER_ADDRESS]?.[String(start)] ??
      Object.values(pool.queued).some((byNonce) => byNonce[String(start)]),
    `held in queued: ${JSON.stringify(pool)}`,
  );
  assert.equal(await anvil.pendingNonce(RELAYER_ADDRESS), start, "the node's pending nonce does not count it");

  const done = await waitStatus(s, sent.id, ['confirmed'], 60_000);
  assert.notEqual(done.hash, sent.hash, 'a replacement was mined');
  assert.equal(done.status_reason, null, 'the escalation reason is gone once it is mined');
  const timeline = (await s.request('GET', `/api/v1/relayers/${RELAYER}/transactions/${sent.id}/timeline`)).body.data
    .entries as Array<{ kind: string; status_reason?: string | null }>;
  assert.ok(
    timeline.some((e) => e.kind === 'status' && STUCK.some((re) => re.test(e.status_reason ?? ''))),
    `the timeline says what the node did: ${JSON.stringify(timeline)}`,
  );
  assert.ok(
    (await escalations(s, 'held')) + (await escalations(s, 'rebroadcasts')) > 0,
    'counted in relaybox_evm_stuck_escalations_total',
  );
  await noncesUsedOnce(start, start + 1);
  // The chain moved on: the next send goes through at once.
  const next = (await s.request('POST', txPath(), { body: send })).body.data;
  await waitStatus(s, next.id, ['confirmed']);
});

test('held in `queued` at the fee cap: nothing higher can be signed, a version at the same top price is, and it is mined', async (t) => {
  const proxy = await startRpcProxy(anvil.url);
  t.after(() => proxy.close());
  // A cap under the network's `fast` price: every version is signed at it.
  const cap = 2_000_000_000n;
  const s = await buildOn(t, anvil, {
    network: { ...QUICK, rpc_urls: [{ url: proxy.url, weight: 100 }] },
    policies: { gas_price_cap: Number(cap) },
  });
  await waitStatus(s, (await s.request('POST', txPath(), { body: send })).body.data.id, ['confirmed']);
  const sent = await sendHeldInQueue(s, proxy);
  assert.equal(BigInt(sent.max_fee_per_gas), cap, 'signed at the cap');
  const done = await waitStatus(s, sent.id, ['confirmed'], 60_000);
  assert.notEqual(done.hash, sent.hash, 'another version was mined');
  assert.equal(BigInt(done.max_fee_per_gas), cap, 'never above the cap');
  assert.ok(
    BigInt(done.max_priority_fee_per_gas) < BigInt(sent.max_priority_fee_per_gas),
    'the same top price, the tip a wei lower',
  );
  assert.ok((await escalations(s, 'held')) + (await escalations(s, 'rebroadcasts')) > 0);
  await noncesUsedOnce(sent.nonce, sent.nonce + 1);
});

test('its nonce used by another transaction while the node still holds it in `queued`: the wait ends, it is re-nonced and mined', async (t) => {
  const proxy = await startRpcProxy(anvil.url);
  t.after(() => proxy.close());
  const s = await buildOn(t, anvil, { network: { ...QUICK, rpc_urls: [{ url: proxy.url, weight: 100 }] } });
  await waitStatus(s, (await s.request('POST', txPath(), { body: send })).body.data.id, ['confirmed']);
  // The key sends on its own at that nonce (automine mines it); the relayer's copy stays known to the node, unmined.
  const sent = await sendHeldInQueue(s, proxy, (nonce) =>
    anvil.sendFrom(ANVIL_KEYS[0], { to: TO, value: 7n, nonce }).then(() => undefined),
  );
  assert.notEqual(await anvil.rpc('eth_getTransactionByHash', [sent.hash]), null, 'the node still knows the held copy');
  const done = await waitStatus(s, sent.id, ['confirmed'], 60_000);
  assert.equal(done.nonce, sent.nonce + 1, 're-signed with the next nonce');
  assert.match(done.status_reason, /re-signed with nonce/);
  assert.ok((await escalations(s, 'nonce_taken_held')) > 0, 'counted as nonce_taken_held');
  await noncesUsedOnce(sent.nonce, sent.nonce + 2);
});

test('a provider listed first that swallows broadcasts does not hold sends back: the second URL delivers them', async (t) => {
  const swallower = await startRpcProxy(anvil.url);
  t.after(() => swallower.close());
  swallower.mode = { kind: 'swallow', answer: 'hash' };
  const s = await buildOn(t, anvil, {
    network: {
      ...QUICK,
      rpc_urls: [
        { url: swallower.url, weight: 100 },
        { url: anvil.url, weight: 100 },
      ],
    },
  });
  const start = await anvil.pendingNonce(RELAYER_ADDRESS);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push((await s.request('POST', txPath(), { body: { ...send, value: 1000 + i } })).body.data.id);
  for (const id of ids) await waitStatus(s, id, ['confirmed'], 60_000);
  assert.ok(
    swallower.counts.swallowed >= ids.length,
    `the first URL swallowed the broadcasts (${swallower.counts.swallowed})`,
  );
  await noncesUsedOnce(start, start + ids.length);
});

test('a provider that swallows every broadcast, alone: the transaction is escalated and the URL marked unhealthy for broadcasts', async (t) => {
  const swallower = await startRpcProxy(anvil.url);
  t.after(() => swallower.close());
  swallower.mode = { kind: 'swallow', answer: 'hash' };
  const s = await buildOn(t, anvil, { network: { ...QUICK, rpc_urls: [{ url: swallower.url, weight: 100 }] } });
  const sent = (await s.request('POST', txPath(), { body: send })).body.data;
  const status = await waitFor(
    async () => (await s.request('GET', `/api/v1/relayers/${RELAYER}/status`)).body.data,
    (st) => (st?.rpc?.broadcast_warnings ?? []).length > 0,
    60_000,
    'the URL marked unhealthy for broadcasts in the status',
  );
  assert.match(
    status.rpc.broadcast_warnings[0],
    /unhealthy for broadcasts: accepted transaction 0x[0-9a-f]{64} as new, but its node never received it/,
  );
  assert.equal(status.rpc.available, true, 'it still answers reads');
  const ready = await s.request('GET', '/api/v1/ready');
  assert.equal(ready.body.components.rpc.status, 'degraded');
  assert.match(ready.body.reason, /unhealthy for broadcasts/);
  const record = (await s.request('GET', txPath(sent.id))).body.data;
  assert.ok(record.hashes.length > 1, 'replaced');
  assert.match(record.status_reason, /never received it although an RPC URL accepted it: replacing/);
  assert.ok((await escalations(s, 'not_received')) > 0);
  // Delivered by hand, it ends final: nothing was left waiting on the URL.
  swallower.mode = { kind: 'pass' };
  await waitStatus(s, sent.id, ['confirmed'], 60_000);
});
