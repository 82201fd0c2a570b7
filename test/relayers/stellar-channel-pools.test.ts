// Issue 44, Stellar: channel accounts built in (the reference needs its channels plugin for them). A relayer with
// `signer_ids` sends from its first key's account (the fund account) through the others (channel accounts): each
// transaction's source and sequence is a channel, its operations act for the fund account, and the fund account pays
// the fee by a fee bump. On the SIMULATED Stellar network (test/support/stellar-rpc.ts: real XDR and signature checks,
// sequence numbers per account), through the HTTP API.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  FeeBumpTransaction,
  Keypair,
  Operation,
  TransactionBuilder,
  type Transaction,
} from '@stellar/stellar-base';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import type { ConfigFile } from '../../src/config/config.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { build, type TestServer } from '../helper.ts';
import { FAST_WEBHOOKS } from '../webhooks/support.ts';
import { parseSigned, payment, stellarKey } from '../transactions/stellar-support.ts';
import { waitAllFinal, waitFinal } from '../transactions/wait-final.ts';

const POOL = 'channels';
const XLM = 10_000_000n;
const path = `/api/v1/relayers/${POOL}/transactions`;
const keys = [0, 1, 2, 3].map((k) => stellarKey(`${POOL} ${k}`));
const [fund, ...channels] = keys.map((k) => k.publicKey()) as [string, ...string[]];

function poolConfig(sim: StellarSim): Partial<ConfigFile> {
  return {
    networks: [
      {
        type: 'stellar',
        network: 'stellar-sim',
        passphrase: sim.passphrase,
        rpc_urls: [{ url: sim.url, weight: 100 }],
        average_blocktime_ms: 50,
      },
    ],
    signers: keys.map((k, i) => ({ id: `xlm-${i}`, type: 'local', development: true, private_key: k.secret() })),
    relayers: [
      {
        id: POOL,
        name: 'Stellar channel accounts',
        network: 'stellar-sim',
        network_type: 'stellar',
        signer_id: 'xlm-0',
        signer_ids: ['xlm-0', 'xlm-1', 'xlm-2', 'xlm-3'],
      },
    ],
  };
}

async function start(t: TestContext, env: Record<string, string> = {}): Promise<{ s: TestServer; sim: StellarSim }> {
  const sim = await startStellarSim({ ledgerMs: 50 });
  t.after(() => sim.close());
  sim.fund(fund, 10_000n * XLM);
  for (const c of channels) sim.fund(c, 2n * XLM);
  const s = await build(t, { config: poolConfig(sim), env: { ...FAST_WEBHOOKS, ...env } });
  return { s, sim };
}

const pgSkip = (await postgresReachable()) ? false : 'no PostgreSQL at 127.0.0.1:5432';

test('Stellar channel pool: concurrent sends use different channel accounts, each fee-bumped by the fund account, all land', async (t) => {
  const { s, sim } = await start(t);
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * XLM);
  const before = channels.map((c) => ({ ...sim.account(c)! }));
  const answers = await Promise.all(
    Array.from({ length: 6 }, () =>
      s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(dest, Number(XLM))] } }),
    ),
  );
  for (const r of answers) assert.equal(r.status, 200, r.text);
  const used = new Map<string, number>();
  for (const r of answers) used.set(r.body.data.from, (used.get(r.body.data.from) ?? 0) + 1);
  for (const from of used.keys()) assert.ok(channels.includes(from), `${from} is a channel account`);
  assert.equal(used.size, 3, 'the sends spread over every channel account');

  const relayer = (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data;
  assert.equal(relayer.address, fund);
  assert.deepEqual(
    relayer.lanes.map((l: any) => [l.address, l.signer_id]),
    keys.map((k, i) => [k.publicKey(), `xlm-${i}`]),
  );
  assert.equal(relayer.lanes[1].balance, String(2n * XLM), 'stroops, read from the network');

  const final = await waitAllFinal(
    s,
    POOL,
    answers.map((r) => r.body.data.id),
  );
  for (const done of final) {
    assert.equal(done.status, 'confirmed', done.status_reason);
    const signed = parseSigned(done.transaction_xdr, sim.passphrase);
    assert.ok(signed.tx instanceof FeeBumpTransaction, 'a fee bump');
    const bump = signed.tx as FeeBumpTransaction;
    assert.equal(bump.feeSource, fund, 'paid by the fund account');
    assert.ok(signed.signedBy(fund), 'the fund key signs the fee bump');
    const inner: Transaction = bump.innerTransaction;
    assert.equal(inner.source, done.from, "the channel is the transaction's source");
    assert.equal(inner.sequence, done.sequence_number);
    for (const op of inner.operations) assert.equal(op.source, fund, 'the operations act for the fund account');
  }
  assert.equal(sim.account(dest)!.balance, 16n * XLM, 'every payment landed, from the fund account');
  channels.forEach((c, k) => {
    const now = sim.account(c)!;
    assert.equal(now.balance, before[k]!.balance, 'a channel pays nothing');
    assert.equal(now.seq, before[k]!.seq + BigInt(used.get(c) ?? 0), 'one sequence number per send of its own');
  });
});

test('Stellar channel pool: a send naming the fund account as its source, or a transaction_xdr, goes from the fund account as without a pool', async (t) => {
  const { s, sim } = await start(t);
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * XLM);
  const sent = await s.request('POST', path, {
    body: { network: 'stellar-sim', source_account: fund, operations: [payment(dest, Number(XLM))] },
  });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.from, fund);
  const done = await waitFinal(s, POOL, sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  const signed = parseSigned(done.transaction_xdr, sim.passphrase);
  assert.ok(!(signed.tx instanceof FeeBumpTransaction));
  assert.ok(signed.signedBy(fund));

  const unsigned = new TransactionBuilder(new Account(fund, '0'), { fee: '100', networkPassphrase: sim.passphrase })
    .addOperation(Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' }))
    .setTimeout(120)
    .build()
    .toXDR();
  const xdrSend = await s.request('POST', path, { body: { network: 'stellar-sim', transaction_xdr: unsigned } });
  assert.equal(xdrSend.status, 200, xdrSend.text);
  assert.equal(xdrSend.body.data.from, fund);
  const xdrDone = await waitFinal(s, POOL, xdrSend.body.data.id);
  assert.equal(xdrDone.status, 'confirmed', xdrDone.status_reason);
  assert.equal(sim.account(dest)!.balance, 12n * XLM);
});

test('Stellar channel pool: sends stored before a restart are picked up by each channel account and land', async (t) => {
  const { s, sim } = await start(t);
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * XLM);
  await s.app.jobs.close(); // hold the jobs: the sends are stored, not signed
  const answers = [];
  for (let i = 0; i < 3; i++)
    answers.push(
      await s.request('POST', path, { body: { network: 'stellar-sim', operations: [payment(dest, Number(XLM))] } }),
    );
  for (const r of answers) assert.equal(r.status, 200, r.text);
  assert.equal(new Set(answers.map((r) => r.body.data.from)).size, 3, 'one channel each');
  const again = await build(t, { config: poolConfig(sim), env: FAST_WEBHOOKS, dataDir: s.dataDir });
  await s.close(); // its data directory stays the new app's
  for (const r of await waitAllFinal(
    again,
    POOL,
    answers.map((a) => a.body.data.id),
  ))
    assert.equal(r.status, 'confirmed', r.status_reason);
  assert.equal(sim.account(dest)!.balance, 13n * XLM);
});

test('Stellar channel pool: two instances on one PostgreSQL send through the channels side by side, every send landing once', {
  skip: pgSkip,
}, async (t) => {
  const env = { DATABASE_URL: (await createTestDatabase('relaybox_channels')).url };
  const { s: a, sim } = await start(t, env);
  const b = await build(t, { config: poolConfig(sim), env: { ...FAST_WEBHOOKS, ...env } });
  const dest = Keypair.random().publicKey();
  sim.fund(dest, 10n * XLM);
  const before = channels.map((c) => sim.account(c)!.seq);
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, k) =>
      (k % 2 ? a : b).request('POST', path, {
        body: { network: 'stellar-sim', operations: [payment(dest, Number(XLM))] },
      }),
    ),
  );
  for (const r of answers) assert.equal(r.status, 200, r.text);
  for (const r of await waitAllFinal(
    a,
    POOL,
    answers.map((x) => x.body.data.id),
  ))
    assert.equal(r.status, 'confirmed', r.status_reason);
  assert.equal(sim.account(dest)!.balance, 18n * XLM, 'each payment landed once');
  const sent = channels.map((c) => answers.filter((r) => r.body.data.from === c).length);
  channels.forEach((c, k) => assert.equal(sim.account(c)!.seq, before[k]! + BigInt(sent[k]!)));
  assert.equal(sent.filter((n) => n > 0).length, 3, 'every channel used');
});
