// Stellar relaying end to end through the HTTP API, on a SIMULATED Stellar network: a Stellar RPC stand-in that parses
// and verifies the real XDR and Ed25519 signatures (@stellar/stellar-base), keeps accounts and sequence numbers and closes
// ledgers on a timer (test/support/stellar-rpc.ts). The app's RPC client is the same one that talks to a real Stellar RPC.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, FeeBumpTransaction, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-base';
import { startStellarSim, type StellarSim, type StellarSimOptions } from '../support/stellar-rpc.ts';
import { build, type TestServer } from '../helper.ts';
import { FAST_WEBHOOKS, startReceiver, waitFor } from '../webhooks/support.ts';
import { parseSigned, payment, stellarSetup, type StellarSetupOptions } from './stellar-support.ts';
import { waitAllFinal, waitFinal } from './wait-final.ts';

const XLM = 10_000_000;
const path = '/api/v1/relayers/xlm/transactions';

async function start(
  t: TestContext,
  simOptions: StellarSimOptions = {},
  extra: StellarSetupOptions = {},
): Promise<{ s: TestServer; sim: StellarSim; relayer: string }> {
  const sim = await startStellarSim({ ledgerMs: 50, ...simOptions });
  t.after(() => sim.close());
  const setup = stellarSetup(sim, 'xlm', extra);
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  return { s, sim, relayer: setup.address };
}

const status = async (s: TestServer, id: string) => (await s.request('GET', `${path}/${id}`)).body.data;

test('simulated Stellar network: a payment from operations is signed with the network passphrase, submitted and confirmed, with a webhook per status', async (t) => {
  const receiver = await startReceiver(t);
  const { s, sim, relayer } = await start(t, {}, { webhook: receiver.url });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  const sent = await s.request('POST', path, {
    body: { network: 'stellar-sim', operations: [payment(dest, 5 * XLM)], memo: { type: 'text', value: 'relaybox' } },
  });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.status, 'pending');
  assert.equal(sent.body.data.hash, null, 'signed (with the sequence number of the moment) when its turn comes');

  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  assert.match(done.hash, /^[0-9a-f]{64}$/);
  const signed = parseSigned(done.transaction_xdr, sim.passphrase);
  assert.equal(
    signed.tx.hash().toString('hex'),
    done.hash,
    "the hash is the signed envelope's, under this network's passphrase",
  );
  assert.ok(signed.signedBy(relayer), "the relayer's signature verifies against its address");
  assert.equal((signed.tx as { memo: { value: Buffer } }).memo.value.toString(), 'relaybox');
  assert.equal(sim.account(dest)!.balance, 15n * BigInt(XLM));
  assert.equal(done.sequence_number, sim.account(relayer)!.seq.toString());

  const statuses = await waitFor(() => {
    const seen = receiver.received.map((r) => r.body.payload.status);
    return seen.includes('confirmed') && seen;
  }, 'the confirmed webhook');
  assert.deepEqual(statuses, ['pending', 'sent', 'submitted', 'confirmed']);
  const metrics = (await s.request('GET', '/metrics')).text;
  assert.match(
    metrics,
    /relaybox_transaction_transitions_total\{network_type="stellar",from="submitted",to="confirmed"\} 1/,
  );
});

test('simulated Stellar network: an unsigned transaction_xdr is signed by the relayer; a signed one with fee_bump is wrapped and paid by the relayer', async (t) => {
  const { s, sim, relayer } = await start(t);
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  // The client's XDR: any sequence number (the relayer sets the network's), the relayer as source.
  const unsigned = new TransactionBuilder(new Account(relayer, '1'), { fee: '100', networkPassphrase: sim.passphrase })
    .addOperation(Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build();
  const a = await s.request('POST', path, { body: { network: 'stellar-sim', transaction_xdr: unsigned.toXDR() } });
  assert.equal(a.status, 200, a.text);
  const doneA = await waitFinal(s, 'xlm', a.body.data.id);
  assert.equal(doneA.status, 'confirmed', doneA.status_reason);
  assert.ok(parseSigned(doneA.transaction_xdr, sim.passphrase).signedBy(relayer));

  const client = Keypair.random();
  sim.fund(client.publicKey(), 10n * BigInt(XLM));
  const inner = new TransactionBuilder(
    new Account(client.publicKey(), sim.account(client.publicKey())!.seq.toString()),
    { fee: '100', networkPassphrase: sim.passphrase },
  )
    .addOperation(Operation.payment({ destination: dest, asset: Asset.native(), amount: '2' }))
    .setTimeout(60)
    .build();
  inner.sign(client);
  const clientBalance = sim.account(client.publicKey())!.balance;
  const b = await s.request('POST', path, {
    body: { network: 'stellar-sim', transaction_xdr: inner.toXDR(), fee_bump: true, max_fee: 10_000 },
  });
  assert.equal(b.status, 200, b.text);
  const doneB = await waitFinal(s, 'xlm', b.body.data.id);
  assert.equal(doneB.status, 'confirmed', doneB.status_reason);
  const bump = parseSigned(doneB.transaction_xdr, sim.passphrase);
  assert.ok(bump.tx instanceof FeeBumpTransaction);
  assert.equal(bump.tx.feeSource, relayer);
  assert.ok(bump.signedBy(relayer), 'the fee bump is signed by the relayer');
  assert.ok(Number(doneB.fee) <= 10_000, 'within max_fee');
  assert.equal(sim.account(client.publicKey())!.balance, clientBalance - 2n * BigInt(XLM), 'the client paid no fee');
});

test('simulated Stellar network: an operation that fails on chain is failed with the result codes', async (t) => {
  const { s } = await start(t);
  const nobody = Keypair.random().publicKey();
  const sent = await s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(nobody, XLM)] } });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'failed');
  assert.equal(done.status_reason, 'tx_failed: op_no_destination');
  assert.ok(done.transaction_result_xdr);
});

test("simulated Stellar network: the relayer's policies: max_fee caps the bid, min_balance fails a send that would go below it", async (t) => {
  const { s, sim, relayer } = await start(t, {}, { policies: { max_fee: 500, min_balance: 100_000_000_000 } });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  const capped = await s.request('POST', path, {
    body: { network: 'stellar-sim', operations: [payment(dest, XLM)], max_fee: 5_000 },
  });
  assert.equal(capped.status, 200, capped.text);
  assert.equal(capped.body.data.max_fee, '500');
  const done = await waitFinal(s, 'xlm', capped.body.data.id);
  assert.equal(done.status, 'failed');
  assert.equal(
    done.status_reason,
    'Insufficient relayer balance. Required: 100000000500, Available: 100000000000, Fee: 500, Min balance: 100000000000',
  );
  assert.equal(sim.account(relayer)!.balance, 100_000_000_000n, 'nothing was submitted');
});

test('simulated Stellar network: TRY_AGAIN_LATER is retried, and a sequence number taken meanwhile (tx_bad_seq) is resynced from the network', async (t) => {
  const { s, sim, relayer } = await start(t);
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  sim.tryAgainLater(6);
  const sent = await s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(dest, XLM)] } });
  const waiting = await waitFor(async () => {
    const r = await status(s, sent.body.data.id);
    return r.status === 'sent' && r;
  }, 'the transaction signed and waiting out TRY_AGAIN_LATER');
  // Another sender uses the account's next sequence number while the relayer waits.
  sim.account(relayer)!.seq += 1n;
  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  assert.equal(
    BigInt(done.sequence_number),
    BigInt(waiting.sequence_number) + 1n,
    'signed again with the next sequence number',
  );
  assert.notEqual(done.hash, waiting.hash);
  assert.equal(sim.account(dest)!.balance, 11n * BigInt(XLM));
});

test('simulated Stellar network: a transaction the node dropped is submitted again; one past its valid_until expires (tx_too_late)', async (t) => {
  // Ledgers close only when the test says: the queue can be dropped before a ledger applies it.
  const { s, sim } = await start(t, { ledgerMs: 0 });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  const first = await s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(dest, XLM)] } });
  await waitFor(async () => (await status(s, first.body.data.id)).status === 'submitted', 'submitted');
  const submits = sim.calls.get('sendTransaction')!;
  sim.dropQueue();
  const closer = setInterval(() => sim.closeLedger(), 50);
  t.after(() => clearInterval(closer));
  const resubmitted = await waitFinal(s, 'xlm', first.body.data.id);
  assert.equal(resubmitted.status, 'confirmed', resubmitted.status_reason);
  assert.ok(sim.calls.get('sendTransaction')! > submits, 'submitted again');
  clearInterval(closer);

  const validUntil = new Date(Date.now() + 3_000).toISOString();
  const second = await s.request('POST', path, {
    body: { network: 'stellar-sim', operations: [payment(dest, XLM)], valid_until: validUntil },
  });
  await waitFor(async () => (await status(s, second.body.data.id)).status === 'submitted', 'submitted');
  // A node that keeps losing it: whatever is queued never makes a ledger.
  const dropper = setInterval(() => sim.dropQueue(), 20);
  t.after(() => clearInterval(dropper));
  const expired = await waitFinal(s, 'xlm', second.body.data.id);
  assert.equal(expired.status, 'expired');
  assert.match(expired.status_reason, /tx_too_late/);
  assert.equal(sim.account(dest)!.balance, 11n * BigInt(XLM));
});

// 60, not 200 as before: the sends are just as concurrent (all in at once, queued on one account), and at one ledger
// each the 200 took 30 s of the suite.
const CONCURRENT_SENDS = 60;

test(`simulated Stellar network: ${CONCURRENT_SENDS} concurrent sends all reach a final status, one ledger each (one pending transaction per account)`, async (t) => {
  const { s, sim } = await start(t, { ledgerMs: 20 }, { ledgerMs: 20 });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * BigInt(XLM));
  const sends = await Promise.all(
    Array.from({ length: CONCURRENT_SENDS }, (_, i) =>
      s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(dest, 1 + i)] } }),
    ),
  );
  for (const r of sends) assert.equal(r.status, 200, r.text);
  const finals = await waitAllFinal(
    s,
    'xlm',
    sends.map((r) => r.body.data.id),
    300_000,
  );
  assert.deepEqual(new Set(finals.map((f) => f.status)), new Set(['confirmed']));
  assert.equal(sim.account(dest)!.balance, 10n * BigInt(XLM) + BigInt((CONCURRENT_SENDS * (CONCURRENT_SENDS + 1)) / 2));
});
