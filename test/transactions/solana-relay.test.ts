// Solana relaying end to end through the HTTP API, on a SIMULATED Solana network: a JSON-RPC server over the real SVM
// (litesvm executes the programs and checks the Ed25519 signatures); slots, commitment levels and blockhash expiry are
// simulated (test/support/solana-rpc.ts). The app's RPC client is the same one that talks to a real node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { verifySignature } from '../../src/chains/solana/wire.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import { startSolanaSim, type SolanaSim, type SolanaSimOptions } from '../support/solana-rpc.ts';
import { build, type TestServer } from '../helper.ts';
import { FAST_WEBHOOKS, startReceiver, waitFor } from '../webhooks/support.ts';
import type { TestContext } from 'node:test';
import { solanaPartlySigned, solanaSetup, transfer, type SolanaSetupOptions } from './solana-support.ts';
import { waitAllFinal, waitFinal } from './wait-final.ts';
import { SOLANA_ADDRESS, solanaTransaction } from './fixtures.ts';

const messageOf = (wire: string) => getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(wire)));

async function start(
  t: TestContext,
  simOptions: SolanaSimOptions = {},
  extra: SolanaSetupOptions = {},
): Promise<{ s: TestServer; sim: SolanaSim; relayer: string }> {
  const sim = await startSolanaSim({ slotMs: 20, finalizeDepth: 4, ...simOptions });
  t.after(() => sim.close());
  const setup = solanaSetup(sim, 'sol', extra);
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  return { s, sim, relayer: setup.address };
}

test('simulated Solana network: an instructions transfer is signed by the relayer, sent, and followed to confirmed (finalized), with a webhook per status', async (t) => {
  const receiver = await startReceiver(t);
  const { s, sim, relayer } = await start(t, {}, { webhook: receiver.url });
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const sent = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(relayer, dest, 1_000_000n)] },
  });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.status, 'pending');
  assert.equal(sent.body.data.fee_payer, relayer);
  assert.equal(sent.body.data.fee, '5000');

  const done = await waitFinal(s, 'sol', sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  assert.ok(done.sent_at && done.confirmed_at);
  const tx = messageOf(done.transaction);
  assert.ok(
    verifySignature(relayer, tx.messageBytes, tx.signatures[relayer as Address]!),
    "the relayer's signature verifies against its address",
  );
  assert.equal(sim.balance(dest), 1_000_000n, 'the transfer landed on the SVM');

  const statuses = await waitFor(() => {
    const seen = receiver.received.map((r) => r.body.payload.status);
    return seen.includes('confirmed') && seen;
  }, 'the confirmed webhook');
  assert.deepEqual(statuses, ['pending', 'sent', 'submitted', 'mined', 'confirmed']);
  const metrics = (await s.request('GET', '/metrics')).text;
  assert.match(
    metrics,
    /relaybox_transaction_transitions_total\{network_type="solana",from="mined",to="confirmed"\} 1/,
  );
});

test('simulated Solana network: a client-built transaction (shape B) with another signer is co-signed as fee payer and lands', async (t) => {
  const { s, sim, relayer } = await start(t);
  const { wire, other } = await solanaPartlySigned(sim, relayer);
  const sent = await s.request('POST', '/api/v1/relayers/sol/transactions', { body: { transaction: wire } });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'sol', sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  const tx = messageOf(done.transaction);
  assert.ok(verifySignature(relayer, tx.messageBytes, tx.signatures[relayer as Address]!));
  assert.ok(
    verifySignature(other, tx.messageBytes, tx.signatures[other as Address]!),
    "the client's signature is kept",
  );
});

test('simulated Solana network: a failing program is refused before the relayer signs it (simulated first); the request forms are checked', async (t) => {
  const { s, relayer } = await start(t);
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const tooMuch = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(relayer, dest, 10n ** 15n)] },
  });
  assert.equal(tooMuch.status, 400, tooMuch.text);
  assert.equal(tooMuch.body.error, 'Validation error: Transaction simulation failed: instruction 0 failed: Custom(1)');
  const listed = await s.request('GET', '/api/v1/relayers/sol/transactions');
  assert.equal(listed.body.data.length, 0, 'nothing was signed or recorded');

  const memo = {
    program_id: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    accounts: [],
    data: Buffer.from('hi').toString('base64'),
  };
  const otherPayer = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { transaction: solanaTransaction() },
  });
  assert.equal(otherPayer.status, 400);
  assert.match(
    otherPayer.body.error,
    new RegExp(`Transaction fee payer ${SOLANA_ADDRESS} does not match relayer address ${relayer}`),
  );
  const both = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [memo], transaction: 'AAAA' },
  });
  assert.match(both.body.error, /Cannot provide both transaction and instructions/);
  const neither = await s.request('POST', '/api/v1/relayers/sol/transactions', { body: { instructions: [] } });
  assert.match(neither.body.error, /Must provide either transaction or instructions/);
});

test("simulated Solana network: the relayer's policies refuse up front (allowed programs, max fee)", async (t) => {
  const { s, relayer } = await start(
    t,
    {},
    { policies: { allowed_programs: ['11111111111111111111111111111111'], max_allowed_fee_lamports: 4_999 } },
  );
  const memo = {
    program_id: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    accounts: [],
    data: Buffer.from('hi').toString('base64'),
  };
  const denied = await s.request('POST', '/api/v1/relayers/sol/transactions', { body: { instructions: [memo] } });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.error, 'Policy violation: Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr not allowed');
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const fee = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(relayer, dest, 1n)] },
  });
  assert.equal(fee.status, 400);
  assert.equal(fee.body.error, 'Policy violation: Fee amount 5000 exceeds max allowed fee amount 4999');
});

test('simulated Solana network: the relayer keeps its minimum balance', async (t) => {
  const { s, relayer } = await start(t, {}, { fund: 10_004_000n });
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const res = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(relayer, dest, 1n)] },
  });
  assert.equal(res.status, 400);
  assert.match(
    res.body.error,
    /Insufficient relayer balance. Required: 10005000, Available: 10004000, Fee: 5000, Min balance: 10000000/,
  );
});

test('simulated Solana network: a blockhash that expires before landing is re-signed when the relayer is the only signer, else expired', async (t) => {
  // Slots advance only on demand here, so the blockhash can be made to expire between signing and sending.
  const { s, sim, relayer } = await start(t, { slotMs: 0, blockhashValidBlocks: 100 });
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const { wire } = await solanaPartlySigned(sim, relayer);
  await s.app.jobs.close(); // hold the jobs: both transactions are signed and stored, not sent
  const alone = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(relayer, dest, 7n * 1_000_000n)] },
  });
  const shared = await s.request('POST', '/api/v1/relayers/sol/transactions', { body: { transaction: wire } });
  assert.equal(alone.status, 200, alone.text);
  assert.equal(shared.status, 200, shared.text);
  sim.expireBlockhashes();
  // A fresh app on the same data (the simulator keeps its state) picks the stored transactions up.
  const s2 = await build(t, { config: solanaSetup(sim, 'sol').config, env: FAST_WEBHOOKS, dataDir: s.dataDir });
  await s.close();
  const ticker = setInterval(() => sim.advance(1), 15);
  t.after(() => clearInterval(ticker));
  const resigned = await waitFinal(s2, 'sol', alone.body.data.id);
  assert.equal(resigned.status, 'confirmed', resigned.status_reason);
  assert.notEqual(resigned.signature, alone.body.data.signature, 'a new signature (fresh blockhash)');
  // Each blockhash lives 100 slots (1.5 s at the ticker's pace; 5 slots, 75 ms, ran out ten times in a row on a loaded
  // machine): a re-signed version can still expire too and be re-signed again. Every version is kept, oldest first, and only one lands (the balance below).
  assert.equal(resigned.signatures[0], alone.body.data.signature);
  assert.equal(resigned.signatures.at(-1), resigned.signature);
  assert.ok(resigned.signatures.length >= 2, JSON.stringify(resigned.signatures));
  assert.equal(new Set(resigned.signatures).size, resigned.signatures.length, 'each version its own signature');
  assert.equal(sim.balance(dest), 7_000_000n);
  const expired = await waitFinal(s2, 'sol', shared.body.data.id);
  assert.equal(expired.status, 'expired');
  assert.match(
    expired.status_reason,
    /blockhash expired before the transaction landed; the transaction needs 1 signature\(s\) besides the relayer's/,
  );
});

test('simulated Solana network: 200 concurrent sends all reach a final status', async (t) => {
  const { s, sim, relayer } = await start(t, { slotMs: 20 });
  const dest = resolveSigner(
    { id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') },
    'solana',
    {},
  ).address;
  const sends = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      s.request('POST', '/api/v1/relayers/sol/transactions', {
        body: { instructions: [transfer(relayer, dest, 1_000_000n + BigInt(i))] },
      }),
    ),
  );
  for (const r of sends) assert.equal(r.status, 200, r.text);
  const finals = await waitAllFinal(
    s,
    'sol',
    sends.map((r) => r.body.data.id),
  );
  assert.deepEqual(new Set(finals.map((f) => f.status)), new Set(['confirmed']));
  assert.equal(sim.balance(dest), 200n * 1_000_000n + (199n * 200n) / 2n);
});
