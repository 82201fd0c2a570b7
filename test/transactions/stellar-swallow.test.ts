// Issue 40 on Stellar (simulated network, test/support/stellar-rpc.ts): a provider that answers every sendTransaction
// PENDING and keeps nothing.
// - Alone: once a ledger closed after the transaction's time bounds, no ledger can include it: it ends `expired`
//   instead of being submitted to that provider forever (the code before issue 40 never ended it), and the URL is
//   shown unhealthy for broadcasts in the relayer's status and readiness.
// - Listed first beside a healthy URL (test/support/swallowing-front.ts in front of the network): submissions go to
//   every URL at once, so each send is confirmed (the code before sent only to the first URL, and they expired).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-base';
import { startStellarSim } from '../support/stellar-rpc.ts';
import { startStellarSwallower } from '../support/swallowing-front.ts';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS } from '../webhooks/support.ts';
import { payment, stellarSetup } from './stellar-support.ts';
import { waitAllFinal, waitFinal } from './wait-final.ts';

const XLM = 10_000_000;

test('simulated Stellar provider that swallows submissions: past its time bounds and a ledger later, the transaction ends expired', async (t) => {
  const sim = await startStellarSim({ ledgerMs: 50 });
  t.after(() => sim.close());
  const setup = stellarSetup(sim, 'xlm');
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  sim.swallow(true);
  const validUntil = new Date(Date.now() + 3_000).toISOString();
  const sent = await s.request('POST', '/api/v1/relayers/xlm/transactions', {
    body: { network: 'stellar-sim', operations: [payment(dest, XLM)], valid_until: validUntil },
  });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'expired');
  assert.match(done.status_reason, /no ledger since included it/);
  assert.ok((sim.calls.get('sendTransaction') ?? 0) > 1, 'submitted again after its time bounds, and swallowed');
  assert.equal(sim.account(dest)!.balance, 10n * BigInt(XLM), 'nothing moved');
  const status = (await s.request('GET', '/api/v1/relayers/xlm/status')).body.data;
  assert.equal(status.rpc.available, true, 'it still answers reads');
  assert.match(
    status.rpc.broadcast_warnings?.[0] ?? '',
    /unhealthy for broadcasts: accepted transaction [0-9a-f]{64} as pending, but the network never had it past its time bounds/,
  );
  const ready = await s.request('GET', '/api/v1/ready');
  assert.equal(ready.body.components.rpc.status, 'degraded');
  assert.match(ready.body.reason, /unhealthy for broadcasts/);
});

test('simulated Stellar network: a provider that swallows submissions, listed first beside a healthy one: every send is confirmed', async (t) => {
  const sim = await startStellarSim({ ledgerMs: 50 });
  t.after(() => sim.close());
  const front = await startStellarSwallower(sim.url, sim.passphrase);
  t.after(() => front.close());
  const setup = stellarSetup(sim, 'xlm');
  setup.config.networks![0]!.rpc_urls = [
    { url: front.url, weight: 100 },
    { url: sim.url, weight: 100 },
  ];
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const sent = await s.request('POST', '/api/v1/relayers/xlm/transactions', {
      body: { network: 'stellar-sim', operations: [payment(dest, XLM)] },
    });
    assert.equal(sent.status, 200, sent.text);
    ids.push(sent.body.data.id);
  }
  const done = await waitAllFinal(s, 'xlm', ids, 60_000);
  assert.deepEqual(
    done.map((d) => d.status),
    ['confirmed', 'confirmed', 'confirmed'],
    JSON.stringify(done.map((d) => d.status_reason)),
  );
  assert.equal(sim.account(dest)!.balance, 13n * BigInt(XLM), 'each payment landed once');
  assert.ok(front.swallowed >= 3, `the first URL was asked and swallowed (${front.swallowed})`);
});
