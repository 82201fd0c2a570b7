// Issue 44, Solana: several fee payers behind one relayer id (`signer_ids`), on the SIMULATED Solana network (litesvm,
// test/support/solana-rpc.ts), through the HTTP API. Sends spread over the fee payers, each signed and paid by its own
// key (re-signs after a blockhash expiry too); a transaction naming a pool key as signer goes to that key; a fee payer
// under min_balance leaves the routing (its sends go to the other) and comes back once funded.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { verifySignature } from '../../src/chains/solana/wire.ts';
import { startSolanaSim, type SolanaSim, type SolanaSimOptions } from '../support/solana-rpc.ts';
import { eventually } from '../support/eventually.ts';
import { build, type TestServer } from '../helper.ts';
import { FAST_WEBHOOKS, startReceiver, waitFor } from '../webhooks/support.ts';
import { solanaKey, solanaPartlySigned, transfer } from '../transactions/solana-support.ts';
import { waitAllFinal, waitFinal } from '../transactions/wait-final.ts';
import type { ConfigFile } from '../../src/config/config.ts';
import type { SignerResolver } from '../../src/domain/signers/ports.ts';
import { faultySigners } from '../support/signer-faults.ts';

const POOL = 'sol-pool';
const SOL = 1_000_000_000n;
const txPath = `/api/v1/relayers/${POOL}/transactions`;
const messageOf = (wire: string) => getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(wire)));
/** A memo: no signer but the fee payer, so any key of the pool can take it (its text makes each message its own). */
const memo = (text: string) => ({
  instructions: [
    {
      program_id: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
      accounts: [],
      data: Buffer.from(`${text} ${randomBytes(4).toString('hex')}`).toString('base64'),
    },
  ],
});

function poolConfig(sim: SolanaSim, policies: Record<string, unknown> = {}, webhook?: string): Partial<ConfigFile> {
  const keys = [0, 1].map((k) => solanaKey(`${POOL} fee payer ${k}`));
  return {
    networks: [
      { type: 'solana', network: 'solana-sim', rpc_urls: [{ url: sim.url, weight: 100 }], average_blocktime_ms: 20 },
    ],
    signers: keys.map((k, i) => ({ id: `fp-${i}`, type: 'local', development: true, private_key: k.hex })),
    relayers: [
      {
        id: POOL,
        name: 'Solana fee payers',
        network: 'solana-sim',
        network_type: 'solana',
        signer_id: 'fp-0',
        signer_ids: ['fp-0', 'fp-1'],
        policies: { fee_payment_strategy: 'relayer', ...policies },
        ...(webhook ? { notification_id: 'hook' } : {}),
      },
    ],
    notifications: webhook ? [{ id: 'hook', type: 'webhook', url: webhook }] : [],
  };
}

async function start(
  t: TestContext,
  funds: [bigint, bigint],
  options: {
    sim?: SolanaSimOptions;
    policies?: Record<string, unknown>;
    resolveSigner?: SignerResolver;
    webhook?: string;
  } = {},
): Promise<{ s: TestServer; sim: SolanaSim; payers: string[] }> {
  const sim = await startSolanaSim({ slotMs: 20, finalizeDepth: 4, ...options.sim });
  t.after(() => sim.close());
  const payers = [0, 1].map((k) => solanaKey(`${POOL} fee payer ${k}`).signer.address);
  payers.forEach((a, k) => sim.airdrop(a, funds[k]!));
  const s = await build(t, {
    config: poolConfig(sim, options.policies, options.webhook),
    env: FAST_WEBHOOKS,
    ...(options.resolveSigner ? { resolveSigner: options.resolveSigner } : {}),
  });
  return { s, sim, payers };
}

/** The record's fee payer is the key it came from, and its fee-payer signature verifies against that key. */
function assertPaidBy(record: Record<string, any>, payers: string[]): void {
  assert.ok(payers.includes(record.from), `from ${record.from} is a key of the pool`);
  assert.equal(record.fee_payer, record.from);
  const tx = messageOf(record.transaction);
  assert.ok(verifySignature(record.from, tx.messageBytes, tx.signatures[record.from as Address]!));
}

const lanesOf = async (s: TestServer) =>
  (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data.lanes as Array<Record<string, any>>;

test('Solana pool: sends spread over two fee payers, each signed and paid by its own key, each lands; the record lists both lanes', async (t) => {
  const { s, sim, payers } = await start(t, [10n * SOL, 10n * SOL]);
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => s.request('POST', txPath, { body: memo(`m${i}`) })),
  );
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const by = new Map<string, number>();
  for (const r of answers) by.set(r.body.data.from, (by.get(r.body.data.from) ?? 0) + 1);
  assert.deepEqual([...by.keys()].sort(), [...payers].sort(), 'both fee payers took sends');

  const relayer = (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data;
  assert.equal(relayer.address, payers[0]);
  assert.deepEqual(
    relayer.lanes.map((l: any) => [l.address, l.signer_id, l.state]),
    payers.map((a, k) => [a, `fp-${k}`, 'active']),
  );
  for (const l of relayer.lanes) assert.match(l.balance, /^\d+$/);

  const final = await waitAllFinal(
    s,
    POOL,
    answers.map((r) => r.body.data.id),
  );
  for (const r of final) {
    assert.equal(r.status, 'confirmed', r.status_reason);
    assertPaidBy(r, payers);
  }
  // A transfer from the second key (it must sign) goes to that key's lane, whatever the routing would choose.
  const dest = solanaKey(`dest ${Math.random()}`).signer.address;
  for (let k = 0; k < 2; k++) {
    const pinned = await s.request('POST', txPath, {
      body: { instructions: [transfer(payers[1]!, dest, SOL / 100n)] },
    });
    assert.equal(pinned.status, 200, pinned.text);
    assert.equal(pinned.body.data.from, payers[1]);
    assert.equal((await waitFinal(s, POOL, pinned.body.data.id)).status, 'confirmed');
  }
  // A client-built transaction goes to its fee payer, and is co-signed by it.
  for (const payer of payers) {
    const { wire } = await solanaPartlySigned(sim, payer);
    const built = await s.request('POST', txPath, { body: { transaction: wire } });
    assert.equal(built.status, 200, built.text);
    assert.equal(built.body.data.from, payer);
    const done = await waitFinal(s, POOL, built.body.data.id);
    assert.equal(done.status, 'confirmed', done.status_reason);
    assertPaidBy(done, payers);
  }
});

test('Solana pool: a blockhash that expires before landing is re-signed by the same fee payer', async (t) => {
  // Slots advance only on demand, so the blockhashes can be made to expire between signing and sending. A fresh one
  // lives 100 slots, 1.5 s at the ticker's pace below (5, 75 ms, ran out at every re-sign on a loaded machine).
  const { s, sim, payers } = await start(t, [10n * SOL, 10n * SOL], { sim: { slotMs: 0, blockhashValidBlocks: 100 } });
  await s.app.jobs.close(); // hold the jobs: the transactions are signed and stored, not sent
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await s.request('POST', txPath, { body: memo(`r${i}`) }));
  for (const r of answers) assert.equal(r.status, 200, r.text);
  assert.equal(new Set(answers.map((r) => r.body.data.from)).size, 2, 'both fee payers signed');
  sim.expireBlockhashes();
  const s2 = await build(t, { config: poolConfig(sim), env: FAST_WEBHOOKS, dataDir: s.dataDir });
  await s.close();
  const ticker = setInterval(() => sim.advance(1), 15);
  t.after(() => clearInterval(ticker));
  for (const sent of answers) {
    const done = await waitFinal(s2, POOL, sent.body.data.id);
    assert.equal(done.status, 'confirmed', done.status_reason);
    assert.ok(done.signatures.length >= 2, 're-signed with a fresh blockhash');
    assert.equal(done.from, sent.body.data.from, 'the same lane');
    assertPaidBy(done, payers);
  }
});

test('Solana pool: a fee payer under min_balance leaves the routing, its sends go to the other; funded again it comes back', async (t) => {
  const receiver = await startReceiver(t);
  const { s, sim, payers } = await start(t, [10n * SOL, (3n * SOL) / 2n], {
    policies: { min_balance: Number(SOL) },
    webhook: receiver.url,
  });
  const [rich, poor] = payers as [string, string];
  // The second key pays half a SOL away (it signs the transfer, so the send is its own): under its min_balance after.
  const dest = solanaKey(`dest ${Math.random()}`).signer.address;
  const drain = await s.request('POST', txPath, { body: { instructions: [transfer(poor, dest, SOL / 2n + 1n)] } });
  assert.equal(drain.status, 200, drain.text);
  assert.equal((await waitFinal(s, POOL, drain.body.data.id)).status, 'confirmed');
  assert.ok(sim.balance(poor) < SOL);

  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await s.request('POST', txPath, { body: memo(`d${i}`) }));
  for (const r of answers) {
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.from, rich, 'the drained key takes no send');
  }
  const out = (await lanesOf(s)).find((l) => l.address === poor)!;
  assert.equal(out.state, 'low_balance');
  assert.match(out.state_reason, /Insufficient relayer balance/);
  for (const r of await waitAllFinal(
    s,
    POOL,
    answers.map((a) => a.body.data.id),
  )) {
    assert.equal(r.status, 'confirmed', r.status_reason);
    assertPaidBy(r, payers);
  }

  // Funded again: looked at again by later sends, it is back in the routing and takes sends.
  sim.airdrop(poor, 5n * SOL);
  const back = await eventually(
    async () => {
      const r = await s.request('POST', txPath, { body: memo('back') });
      assert.equal(r.status, 200, r.text);
      return r.body.data.from === poor ? r.body.data : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.ok(back, 'the funded key took a send again');
  assert.equal((await lanesOf(s)).find((l) => l.address === poor)!.state, 'active');
  assert.equal((await waitFinal(s, POOL, back.id)).status, 'confirmed');
  // Both changes as relayer_lane_state events to the relayer's notification.
  const events = await waitFor(() => {
    const seen = receiver.received
      .map((r) => r.body.payload)
      .filter((p) => p.payload_type === 'relayer_lane_state')
      .map((p) => [p.address, p.previous_state, p.state, p.in_routing]);
    return seen.length >= 2 && seen;
  }, 'the relayer_lane_state events');
  assert.deepEqual(events, [
    [poor, 'active', 'low_balance', false],
    [poor, 'low_balance', 'active', true],
  ]);
});

test('Solana pool: a fee payer whose signer fails passes the send to the other and leaves the routing; it comes back by itself', async (t) => {
  const { resolveSigner, faults } = faultySigners();
  const { s, payers } = await start(t, [10n * SOL, 10n * SOL], { resolveSigner });
  faults.failAfter(0);
  const sent = await s.request('POST', txPath, { body: memo('f') });
  assert.equal(sent.status, 200, sent.text);
  const lanes = await lanesOf(s);
  const failing = lanes.find((l) => l.state === 'signer_failing');
  assert.ok(failing, JSON.stringify(lanes));
  assert.notEqual(sent.body.data.from, failing.address, 'the other key took the send');
  assert.ok(payers.includes(sent.body.data.from));
  // Offered again after a while: its sends are signed, and it is back in the routing.
  const back = await eventually(
    async () => {
      const r = await s.request('POST', txPath, { body: memo('again') });
      assert.equal(r.status, 200, r.text);
      return r.body.data.from === failing.address ? r.body.data : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.ok(back, 'the key whose signer failed took a send again');
  assert.equal((await lanesOf(s)).find((l) => l.address === failing.address)!.state, 'active');
});

test('Solana pool: a start that drops a fee payer with transactions in flight is refused naming it; kept, they land', async (t) => {
  const { s, sim, payers } = await start(t, [10n * SOL, 10n * SOL]);
  await s.app.jobs.close(); // hold the jobs: the transactions are signed and stored, not sent
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await s.request('POST', txPath, { body: memo(`k${i}`) }));
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const onSecond = answers.filter((r) => r.body.data.from === payers[1]).length;
  assert.ok(onSecond > 0);
  const config = poolConfig(sim);
  const dropped = { ...config, relayers: [{ ...config.relayers![0]!, signer_ids: ['fp-0'] }] };
  await assert.rejects(
    build(t, { config: dropped, env: FAST_WEBHOOKS, dataDir: s.dataDir }),
    new RegExp(
      `key ${payers[1]} \\(signer 'fp-1'\\) has ${onSecond} transaction\\(s\\) in flight; keep it in signer_ids`,
    ),
  );
  const again = await build(t, { config, env: FAST_WEBHOOKS, dataDir: s.dataDir });
  for (const r of await waitAllFinal(
    again,
    POOL,
    answers.map((a) => a.body.data.id),
  )) {
    assert.equal(r.status, 'confirmed', r.status_reason);
    assertPaidBy(r, payers);
  }
});
