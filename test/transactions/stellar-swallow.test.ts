// Issue 40 on Stellar (simulated network, test/support/stellar-rpc.ts): a provider that answers every sendTransaction
// PENDING and keeps nothing. Once a ledger closed after the transaction's time bounds, no ledger can include it: it
// ends `expired` instead of being submitted to that provider forever (the code before issue 40 never ended it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-base';
import { startStellarSim } from '../support/stellar-rpc.ts';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS } from '../webhooks/support.ts';
import { payment, stellarSetup } from './stellar-support.ts';
import { waitFinal } from './wait-final.ts';

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
  const sent = await s.request('POST', '/api/v1/relayers/xlm/transactions', { body: { network: 'stellar-sim', operations: [payment(dest, XLM)], valid_until: validUntil } });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'expired');
  assert.match(done.status_reason, /no ledger since included it/);
  assert.ok((sim.calls.get('sendTransaction') ?? 0) > 1, 'submitted again after its time bounds, and swallowed');
  assert.equal(sim.account(dest)!.balance, 10n * BigInt(XLM), 'nothing moved');
});
