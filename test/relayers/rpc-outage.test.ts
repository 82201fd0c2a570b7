// Every RPC URL of a relayer's network down (issue 26), against a real anvil behind two switchable endpoints: the
// status route and readiness say so with the reason, the transaction in flight keeps its next step scheduled, and once
// an endpoint answers again it is confirmed without anyone acting.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { startRpcProxy, type FaultMode } from '../support/rpc-proxy.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

/** An RPC URL in front of anvil (test/support/rpc-proxy.ts), counting; its `mode` makes it answer 503 or 429. */
async function endpoint(t: { after(fn: () => unknown): void }) {
  const proxy = await startRpcProxy(anvil.url);
  t.after(() => proxy.close());
  return { url: `${proxy.url}/v2/provider-key`, proxy };
}

const DOWN: FaultMode = { kind: 'overloaded' };

const waitStatus = (s: TestServer, id: string, statuses: string[], timeoutMs = 30_000) =>
  waitFor(
    async () => (await s.request('GET', `/api/v1/relayers/r/transactions/${id}`)).body.data,
    (tx) => statuses.includes(tx?.status),
    timeoutMs,
    `status ${statuses.join('/')}`,
  );

test('every RPC URL down: status and readiness say so, the transaction stays scheduled, and it confirms by itself once one answers', async (t) => {
  const [a, b] = [await endpoint(t), await endpoint(t)];
  const s = await build(t, {
    runtime: true,
    config: {
      networks: [
        anvil.network('outage', {
          rpc_urls: [
            { url: a.url, weight: 100 },
            { url: b.url, weight: 50 },
          ],
        }),
      ],
      signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[2] }],
      relayers: [{ id: 'r', name: 'outage', network: 'outage', signer_id: 'key' }],
      notifications: [],
      plugins: [],
    },
  });
  // The first balance check, so the status route has a balance to answer with while the network does not.
  await waitFor(
    async () => (await s.request('GET', '/api/v1/relayers/r/status')).body.data,
    (st) => st.balance_watch !== null,
    20_000,
    'a balance check',
  );
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const sent = await s.request('POST', '/api/v1/relayers/r/transactions', {
    body: { to: ANVIL_ADDRESSES[0], value: 1, speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const id = sent.body.data.id;
  await waitStatus(s, id, ['submitted']);

  a.proxy.mode = b.proxy.mode = DOWN;
  const down = await waitFor(
    async () => (await s.request('GET', '/api/v1/relayers/r/status')).body,
    (body) => body.data?.rpc?.available === false,
    30_000,
    'the outage in the status',
  );
  assert.deepEqual([down.data.rpc.urls, down.data.rpc.urls_up], [2, 0]);
  assert.match(
    down.data.rpc.reason,
    /^every RPC URL of network 'outage' is down \(last error: HTTP 503\); its transactions wait and resume when one answers$/,
  );
  assert.equal(
    down.data.balance,
    down.data.balance_watch.balance,
    "the last check's balance while the network does not answer",
  );
  assert.doesNotMatch(JSON.stringify(down), /provider-key/);
  const ready = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(ready.status, 200);
  assert.equal(ready.body.status, 'degraded');
  assert.equal(ready.body.reason, down.data.rpc.reason);
  assert.deepEqual(ready.body.components.rpc, { status: 'degraded', error: down.data.rpc.reason });
  assert.equal((await s.request('GET', `/api/v1/relayers/r/transactions/${id}`)).body.data.status, 'submitted');
  assert.ok(await s.app.store.repos.jobs.get('evm.check', 'r'), "the relayer's check stays scheduled");

  const forwarded = b.proxy.counts.forwarded;
  b.proxy.mode = { kind: 'pass' };
  await anvil.mine(1);
  const done = await waitStatus(s, id, ['confirmed'], 60_000);
  assert.equal(done.status, 'confirmed');
  assert.ok(b.proxy.counts.forwarded > forwarded, 'the URL that came back answered');
  const after = (await s.request('GET', '/api/v1/relayers/r/status')).body.data;
  assert.equal(after.rpc.available, true);
  assert.equal((await s.request('GET', '/api/v1/ready', { auth: false })).body.status, 'healthy');
});

test('one provider rate-limiting (429, Retry-After: 120) is paused alone: sends confirm through the other, which takes every call', async (t) => {
  const [limited, live] = [await endpoint(t), await endpoint(t)];
  limited.proxy.mode = { kind: 'limited', retryAfter: '120' };
  const s = await build(t, {
    config: {
      networks: [
        anvil.network('limited', {
          rpc_urls: [
            { url: limited.url, weight: 100 },
            { url: live.url, weight: 50 },
          ],
        }),
      ],
      signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[1] }],
      relayers: [{ id: 'r', name: 'limited', network: 'limited', signer_id: 'key' }],
      notifications: [],
      plugins: [],
    },
  });
  const ids = [];
  for (let i = 0; i < 3; i++) {
    const sent = await s.request('POST', '/api/v1/relayers/r/transactions', {
      body: { to: ANVIL_ADDRESSES[0], value: 1, speed: 'fast' },
    });
    assert.equal(sent.status, 200, sent.text);
    ids.push(sent.body.data.id);
  }
  for (const id of ids) await waitStatus(s, id, ['confirmed']);
  assert.equal(limited.proxy.counts.errors, 1, 'asked once, then left alone for its Retry-After (no probe either)');
  assert.equal(limited.proxy.counts.forwarded, 0);
  assert.ok(live.proxy.counts.forwarded > 3);
  const st = (await s.request('GET', '/api/v1/relayers/r/status')).body.data;
  assert.deepEqual(st.rpc, { available: true, urls: 2, urls_up: 1 });
});
