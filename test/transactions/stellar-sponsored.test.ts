// Stellar sponsored transactions (users pay the fee in a token) end to end through the HTTP API and the reference's own
// client (@openzeppelin/relayer-sdk), on a SIMULATED Stellar network (test/support/stellar-rpc.ts: real XDR, real
// Ed25519 signature checks, simulated ledgers and balances) priced by a SIMULATED Horizon path endpoint
// (test/support/horizon-paths.ts: Horizon's request and answer shapes, a price set by the test).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  Asset,
  FeeBumpTransaction,
  Keypair,
  Operation,
  TransactionBuilder,
  Account,
  type Transaction,
} from '@stellar/stellar-base';
import { Configuration, RelayersApi } from '@openzeppelin/relayer-sdk';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import { startHorizonSim, type HorizonSim } from '../support/horizon-paths.ts';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { parseSigned, payment, stellarKey, stellarSetup } from './stellar-support.ts';
import { waitFinal } from './wait-final.ts';

const XLM = 10_000_000n;
const RELAYER = 'xlm-gasless';
const base = `/api/v1/relayers/${RELAYER}`;
const issuer = stellarKey('USDC issuer').publicKey();
const USDC = `USDC:${issuer}`;
const EURC = `EURC:${issuer}`;

interface World {
  s: TestServer;
  sim: StellarSim;
  horizon: HorizonSim;
  relayer: string;
  user: Keypair;
  client: RelayersApi;
}

async function start(t: TestContext, policies: Record<string, unknown>): Promise<World> {
  const sim = await startStellarSim({ ledgerMs: 50 });
  t.after(() => sim.close());
  const horizon = await startHorizonSim({ [USDC]: '0.15', [EURC]: '0.14' });
  t.after(() => horizon.close());
  sim.fund(issuer, 100n * XLM);
  const setup = stellarSetup(sim, RELAYER, { policies });
  setup.config.networks = setup.config.networks!.map((n) => ({ ...n, horizon_url: horizon.url }));
  const user = Keypair.random();
  sim.fund(user.publicKey(), 10n * XLM);
  sim.credit(user.publicKey(), USDC, 100n * XLM);
  const s = await build(t, { config: setup.config });
  return {
    s,
    sim,
    horizon,
    relayer: setup.address,
    user,
    client: new RelayersApi(new Configuration({ basePath: s.url, accessToken: API_KEY })),
  };
}

const userPolicy = {
  fee_payment_strategy: 'user',
  allowed_tokens: [{ asset: USDC, max_allowed_fee: 100_000 }],
  fee_margin_percentage: 10,
  max_fee: 100_000,
};

/** The user's signature over the built transaction, as a wallet would add it. */
function signByUser(xdr: string, sim: StellarSim, user: Keypair): Transaction {
  const tx = TransactionBuilder.fromXDR(xdr, sim.passphrase) as Transaction;
  tx.sign(user);
  return tx;
}

test('simulated network and Horizon: quote → build → the user signs → send with fee_bump → confirmed; the relayer pays XLM, the user pays USDC (the reference client drives quote and build)', async (t) => {
  const w = await start(t, userPolicy);
  // One-time setup, as the reference's guide has it: the relayer opens a trustline to the fee token (its own send).
  const usdc = { type: 'credit_alphanum4', code: 'USDC', issuer };
  const trust = await w.s.request('POST', `${base}/transactions`, {
    body: { network: 'stellar-sim', operations: [{ type: 'change_trust', asset: usdc }] },
  });
  assert.equal((await waitFinal(w.s, RELAYER, trust.body.data.id)).status, 'confirmed');
  assert.equal(w.sim.assetBalance(w.relayer, USDC), 0n);
  const dest = Keypair.random().publicKey();
  w.sim.fund(dest, 5n * XLM);
  const request = {
    operations: [payment(dest, Number(2n * XLM))],
    source_account: w.user.publicKey(),
    fee_token: USDC,
  };

  // Two operations (the user's payment, the fee payment) and the fee bump at 100 stroops, +10% margin: 330 stroops.
  const quote = (await w.client.quoteSponsoredTransaction(RELAYER, request as never)).data;
  assert.equal(quote.success, true);
  assert.deepEqual(quote.data, { fee_in_token_ui: '0.0000049', fee_in_token: '49', conversion_rate: String(49 / 330) });
  const asked = w.horizon.requests.at(-1)!;
  assert.equal(asked.path, '/paths/strict-send');
  assert.deepEqual(asked.query, { source_asset_type: 'native', source_amount: '0.0000330', destination_assets: USDC });

  const built = (await w.client.buildSponsoredTransaction(RELAYER, request as never)).data.data as unknown as Record<
    string,
    string
  >;
  assert.equal(built.fee_in_token, '49');
  assert.equal(built.fee_in_stroops, '330');
  assert.equal(built.fee_token, USDC);
  const tx = signByUser(built.transaction!, w.sim, w.user);
  assert.equal(tx.source, w.user.publicKey());
  assert.equal(BigInt(tx.sequence), w.sim.account(w.user.publicKey())!.seq + 1n, "the user's next sequence number");
  assert.equal(tx.operations.length, 2);
  const fee = tx.operations[1] as Operation.Payment;
  assert.deepEqual(
    [fee.type, fee.destination, fee.amount, fee.asset.getCode()],
    ['payment', w.relayer, '0.0000049', 'USDC'],
  );
  assert.equal(Number(tx.timeBounds!.maxTime), Date.parse(built.valid_until!) / 1000);
  assert.ok(Date.parse(built.valid_until!) - Date.now() > 100_000, 'two minutes to sign');

  const relayerXlm = w.sim.account(w.relayer)!.balance;
  const userXlm = w.sim.account(w.user.publicKey())!.balance;
  const sent = await w.s.request('POST', `${base}/transactions`, {
    body: { network: 'stellar-sim', transaction_xdr: tx.toXDR(), fee_bump: true },
  });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(w.s, RELAYER, sent.body.data.id);
  assert.equal(done.status, 'confirmed', done.status_reason);
  const landed = parseSigned(done.transaction_xdr, w.sim.passphrase);
  assert.ok(
    landed.tx instanceof FeeBumpTransaction && landed.tx.feeSource === w.relayer,
    'a fee bump paid by the relayer',
  );
  assert.ok(landed.signedBy(w.relayer), "the relayer's signature verifies");
  assert.equal(
    w.sim.account(w.relayer)!.balance,
    relayerXlm - 300n,
    'the relayer paid the network fee (3 × 100 stroops)',
  );
  assert.equal(w.sim.account(w.user.publicKey())!.balance, userXlm - 2n * XLM, 'the user paid no XLM fee');
  assert.equal(w.sim.assetBalance(w.relayer, USDC), 49n, 'the token fee reached the relayer');
  assert.equal(w.sim.assetBalance(w.user.publicKey(), USDC), 100n * XLM - 49n);
  assert.equal(w.sim.account(dest)!.balance, 7n * XLM);
});

test('refused before anything is signed: a payment below the quote, a token not allowed, operations acting for the relayer, a Soroban token', async (t) => {
  const w = await start(t, userPolicy);
  const dest = Keypair.random().publicKey();
  w.sim.fund(dest, 5n * XLM);
  const seq = () => w.sim.account(w.user.publicKey())!.seq.toString();
  const userTx = (ops: ReturnType<typeof Operation.payment>[], timeout = 120) => {
    const b = new TransactionBuilder(new Account(w.user.publicKey(), seq()), {
      fee: '100',
      networkPassphrase: w.sim.passphrase,
    }).setTimeout(timeout);
    for (const op of ops) b.addOperation(op);
    const tx = b.build();
    tx.sign(w.user);
    return tx.toXDR();
  };
  const send = (xdr: string) =>
    w.s.request('POST', `${base}/transactions`, {
      body: { network: 'stellar-sim', transaction_xdr: xdr, fee_bump: true },
    });
  const usdc = new Asset('USDC', issuer);
  const pay = (destination: string, amount: string, asset = Asset.native(), source?: string) =>
    Operation.payment({ destination, asset, amount, ...(source ? { source } : {}) });

  // 40 units where the order book says 49 (two operations + the fee bump, with the margin).
  const under = await send(userTx([pay(dest, '1'), pay(w.relayer, '0.0000040', usdc)]));
  assert.equal(under.status, 400, under.text);
  assert.equal(under.body.error, 'Insufficient token payment: expected 49, got 40');
  // The price moved against the user after the build: refused the same way.
  const built = (
    await w.s.request('POST', `${base}/transactions/sponsored/build`, {
      body: { operations: [payment(dest, 1)], source_account: w.user.publicKey(), fee_token: USDC },
    })
  ).body.data;
  w.horizon.setPrice(USDC, '0.30');
  const moved = await send(signByUser(built.transaction, w.sim, w.user).toXDR());
  assert.equal(moved.body.error, 'Insufficient token payment: expected 99, got 49');
  w.horizon.setPrice(USDC, '0.15');

  const eurc = new Asset('EURC', issuer);
  w.sim.credit(w.user.publicKey(), EURC, 10n * XLM);
  const other = await send(userTx([pay(dest, '1'), pay(w.relayer, '1', eurc)]));
  assert.equal(other.body.error, `Token not allowed: Token ${EURC} not in allowed tokens list`);
  const quoteEurc = await w.s.request('POST', `${base}/transactions/sponsored/quote`, {
    body: { operations: [payment(dest, 1)], source_account: w.user.publicKey(), fee_token: EURC },
  });
  assert.equal(quoteEurc.status, 400);
  assert.equal(quoteEurc.body.error, `Token not allowed: Token ${EURC} not in allowed tokens list`);

  const none = await send(userTx([pay(dest, '1')]));
  assert.equal(
    none.body.error,
    'Validation error: Gasless transactions must include a fee payment operation to the relayer',
  );
  const drain = await send(userTx([pay(w.relayer, '0.0000100', usdc), pay(dest, '100', Asset.native(), w.relayer)]));
  assert.match(drain.body.error, /^Validation error: Operation 1: its source account is the relayer/);
  const bySource = await w.s.request('POST', `${base}/transactions/sponsored/quote`, {
    body: { operations: [payment(dest, 1)], source_account: w.relayer, fee_token: USDC },
  });
  assert.equal(
    bySource.body.error,
    'Failed to validate gasless transaction: Validation error: Transaction source account cannot be the relayer address. This is a security measure to prevent relayer fund drainage.',
  );

  const soroban = await w.s.request('POST', `${base}/transactions/sponsored/quote`, {
    body: {
      transaction_xdr: userTx([pay(dest, '1')]),
      fee_token: 'CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC',
    },
  });
  assert.equal(soroban.status, 400);
  assert.match(soroban.body.error, /is a Soroban token contract: Soroban gas abstraction .* is not offered/);
  const auth = await w.s.request('POST', `${base}/transactions`, {
    body: {
      network: 'stellar-sim',
      transaction_xdr: userTx([pay(dest, '1')]),
      signed_auth_entry: 'AAAA',
      fee_bump: true,
    },
  });
  assert.equal(auth.body.error, 'Cannot use both signed_auth_entry and fee_bump');
  // sign-transaction signs for a user who pays only what the send path would accept, valid for two minutes at most.
  const signTx = (xdr: string) => w.s.request('POST', `${base}/sign-transaction`, { body: { unsigned_xdr: xdr } });
  const fresh = (
    await w.s.request('POST', `${base}/transactions/sponsored/build`, {
      body: { operations: [payment(dest, 1)], source_account: w.user.publicKey(), fee_token: USDC },
    })
  ).body.data;
  const signedByRelayer = await signTx(fresh.transaction);
  assert.equal(signedByRelayer.status, 200, signedByRelayer.text);
  assert.ok(signedByRelayer.body.data.signature);
  assert.equal(
    (await signTx(userTx([pay(dest, '1')]))).body.error,
    'Failed to validate transaction: Validation error: Gasless transactions must include a fee payment operation to the relayer',
  );
  assert.match(
    (await signTx(userTx([pay(dest, '1'), pay(w.relayer, '0.0000049', usdc)], 600))).body.error,
    /^Failed to validate transaction: Validation error: Transaction validity duration \(\d+ s\) exceeds maximum allowed duration \(120 s\)$/,
  );

  const list = await w.s.request('GET', `${base}/transactions`);
  assert.equal(list.body.data.length, 0, 'nothing refused was stored, so nothing was signed');
  assert.equal(w.sim.assetBalance(w.user.publicKey(), USDC), 100n * XLM);
});

test('the policies and the request are checked: build needs fee_payment_strategy user; bad slippage, bad tokens and bad requests are refused with the reason', async (t) => {
  const w = await start(t, { allowed_tokens: [{ asset: USDC }] });
  const dest = Keypair.random().publicKey();
  const body = { operations: [payment(dest, 1)], source_account: w.user.publicKey(), fee_token: USDC };
  const quote = await w.s.request('POST', `${base}/transactions/sponsored/quote`, { body });
  assert.equal(quote.status, 200, quote.text);
  assert.equal(quote.body.data.fee_in_token, '45', 'no margin: 300 stroops at 0.15');
  const built = await w.s.request('POST', `${base}/transactions/sponsored/build`, { body });
  assert.equal(built.status, 400);
  assert.equal(built.body.error, 'Gas abstraction requires fee_payment_strategy: User');

  const cases: Array<[unknown, RegExp]> = [
    [
      { ...body, fee_token: 'USDC' },
      /^Invalid fee_token structure: Invalid asset identifier: Invalid fee_token format: USDC/,
    ],
    [{ ...body, fee_token: `USDC:${issuer.slice(0, 55)}` }, /must be 56 characters/],
    [{ ...body, transaction_xdr: 'AAAA' }, /^Cannot provide both transaction_xdr and operations$/],
    [{ fee_token: USDC }, /^Must provide either transaction_xdr or operations$/],
    [{ operations: body.operations, fee_token: USDC }, /^source_account is required when providing operations$/],
    [{ ...body, extra: 1 }, /extra/],
    [{ transaction_xdr: 'not xdr', fee_token: USDC }, /^Failed to parse XDR/],
    [{ transaction: 'AQID', fee_token: USDC }, /^Solana request type does not match Stellar relayer type$/],
    [{ ...body, source_account: 'nobody' }, /^'source_account' must be a valid Stellar account \(G\.\.\.\)$/],
  ];
  for (const [b, expected] of cases) {
    const res = await w.s.request('POST', `${base}/transactions/sponsored/quote`, { body: b });
    assert.equal(res.status, 400, JSON.stringify(b));
    assert.match(res.body.error, expected);
  }
  const broke = Keypair.random();
  w.sim.fund(broke.publicKey(), 10n * XLM);
  const poor = await w.s.request('POST', `${base}/transactions/sponsored/quote`, {
    body: { ...body, source_account: broke.publicKey() },
  });
  assert.equal(
    poor.body.error,
    `Validation error: Failed to fetch user balance for token ${USDC}: No trustline found for asset ${USDC} on account ${broke.publicKey()}`,
  );

  const badPolicies: Array<[unknown, RegExp]> = [
    [{ slippage_percentage: 150 }, /'policies.slippage_percentage' must be a percentage from 0 to 100/],
    [
      { allowed_tokens: [{ asset: 'USDC:nobody' }] },
      /'policies.allowed_tokens.0.asset' must be 'native', 'CODE:ISSUER'/,
    ],
    [{ allowed_tokens: [{ asset: USDC, swap_config: { slippage_percentage: -1 } }] }, /'policies.allowed_tokens/],
    [{ fee_payment_strategy: 'someone' }, /'policies.fee_payment_strategy' must be 'relayer' or 'user'/],
    [{ swap_config: { strategies: ['order-book'], cron_schedule: '61 * * * *' } }, /'policies.swap_config/],
    [
      { swap_config: { strategies: ['soroswap'] } },
      /'policies.swap_config.strategies' cannot include 'soroswap': Soroban token swaps \(Soroswap\) are not offered/,
    ],
  ];
  for (const [policies, expected] of badPolicies) {
    const res = await w.s.request('PATCH', base, { body: { policies } });
    assert.equal(res.status, 400, JSON.stringify(policies));
    assert.match(res.body.error, expected);
  }
  const unknownRelayer = await w.s.request('POST', '/api/v1/relayers/nobody/transactions/sponsored/quote', { body });
  assert.equal(unknownRelayer.status, 404);
  // No price, no quote: Horizon unreachable answers 503 with the reason, never a guess.
  await w.horizon.close();
  const down = await w.s.request('POST', `${base}/transactions/sponsored/quote`, { body });
  assert.equal(down.status, 503);
  assert.match(down.body.error, /^Horizon of network 'stellar-sim' \(path finding\): /);
});
