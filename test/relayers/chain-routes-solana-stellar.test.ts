// Relayer chain routes on Solana and Stellar through a real HTTP server, against SIMULATED networks
// (test/support/solana-rpc.ts: the real SVM in litesvm; test/support/stellar-rpc.ts: real XDR and signature checks).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-base';
import { build } from '../helper.ts';
import { startSolanaSim, type SolanaSim } from '../support/solana-rpc.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import { SOLANA_ADDRESS } from '../transactions/fixtures.ts';

let solana: SolanaSim;
let stellar: StellarSim;
before(async () => {
  [solana, stellar] = await Promise.all([startSolanaSim(), startStellarSim()]);
});
after(() => Promise.all([solana.close(), stellar.close()]));

const SOLANA_SEED = randomBytes(32).toString('hex');
const SOLANA_RELAYER = resolveSigner({ id: 'x', type: 'local', private_key: SOLANA_SEED }, 'solana', {}).address;
const STELLAR_KEY = Keypair.random();
const UNFUNDED_KEY = Keypair.random();
const base = (id: string) => `/api/v1/relayers/${id}`;

function config() {
  const dead = [{ url: 'http://127.0.0.1:1', weight: 100 }];
  return {
    networks: [
      { type: 'solana' as const, network: 'solana-sim', rpc_urls: [{ url: solana.url, weight: 100 }] },
      { type: 'solana' as const, network: 'solana-dead', rpc_urls: dead },
      {
        type: 'stellar' as const,
        network: 'stellar-sim',
        passphrase: stellar.passphrase,
        rpc_urls: [{ url: stellar.url, weight: 100 }],
      },
    ],
    signers: [
      { id: 'solana-key', type: 'local' as const, private_key: SOLANA_SEED },
      { id: 'solana-address', type: 'local' as const, address: SOLANA_ADDRESS },
      { id: 'stellar-key', type: 'local' as const, private_key: STELLAR_KEY.secret() },
      { id: 'stellar-unfunded', type: 'local' as const, private_key: UNFUNDED_KEY.secret() },
    ],
    // The Solana relayers pay the fees (without the field, users would pay in tokens: the reference's default).
    relayers: [
      {
        id: 'sol',
        name: 'Solana',
        network: 'solana-sim',
        signer_id: 'solana-key',
        policies: { fee_payment_strategy: 'relayer' as const },
      },
      {
        id: 'sol-watch',
        name: 'Solana, address only',
        network: 'solana-sim',
        signer_id: 'solana-address',
        policies: { fee_payment_strategy: 'relayer' as const },
      },
      {
        id: 'sol-dead',
        name: 'Solana, RPC down',
        network: 'solana-dead',
        signer_id: 'solana-key',
        policies: { fee_payment_strategy: 'relayer' as const },
      },
      { id: 'xlm', name: 'Stellar', network: 'stellar-sim', signer_id: 'stellar-key' },
      { id: 'xlm-new', name: 'Stellar, account not created', network: 'stellar-sim', signer_id: 'stellar-unfunded' },
      { id: 'xlm-paused', name: 'Stellar, paused', network: 'stellar-sim', signer_id: 'stellar-key', paused: true },
    ],
    notifications: [],
  };
}

const start = (t: Parameters<typeof build>[0]) => build(t, { config: config(), env: { LOG_LEVEL: 'debug' } });

/**
 * A Solana transaction paying its fee from `feePayer`, with one memo instruction (base64 wire, unsigned), on the
 * simulated network's latest blockhash: the relayer simulates what it signs, and a funded fee payer lets it succeed.
 */
function solanaTx(feePayer: string): string {
  if (solana.balance(feePayer) < 1_000_000_000n) solana.airdrop(feePayer, 1_000_000_000n);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(solana.svm.latestBlockhash()), lastValidBlockHeight: 100n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('relaybox'),
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

function ed25519Verifies(addressBytes: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(addressBytes).toString('base64url') },
    format: 'jwk',
  });
  return verify(null, message, key, signature);
}

/** A client's Stellar payment envelope (unsigned), from a throwaway source account. */
function stellarXdr(): string {
  const source = Keypair.random();
  return new TransactionBuilder(new Account(source.publicKey(), '41'), {
    fee: '100',
    networkPassphrase: stellar.passphrase,
  })
    .addOperation(Operation.payment({ destination: STELLAR_KEY.publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build()
    .toXDR();
}

test('simulated Solana: balance in lamports and the reference status shape (no nonce)', async (t) => {
  solana.airdrop(SOLANA_RELAYER, 3_000_000_000n);
  const s = await start(t);
  const balance = await s.request('GET', `${base('sol')}/balance`);
  assert.equal(balance.status, 200, balance.text);
  assert.deepEqual(balance.body.data, { balance: Number(solana.balance(SOLANA_RELAYER)), unit: 'lamport' });
  const status = await s.request('GET', `${base('sol')}/status`);
  const { disabled_reason: _d, rpc: _r, balance_watch: _b, ...solStatus } = status.body.data;
  assert.deepEqual(solStatus, {
    network_type: 'solana',
    balance: String(solana.balance(SOLANA_RELAYER)),
    pending_transactions_count: 0,
    last_confirmed_transaction_timestamp: null,
    system_disabled: false,
    paused: false,
  });
  const dead = await s.request('GET', `${base('sol-dead')}/balance`);
  assert.equal(dead.status, 503);
  assert.match(dead.body.error, /^network 'solana-dead': getBalance failed/);
});

test('simulated Stellar: balance in stroops, status with the on-chain sequence; an account not yet created has 0', async (t) => {
  stellar.fund(STELLAR_KEY.publicKey(), 50_000_000n);
  const s = await start(t);
  const account = stellar.account(STELLAR_KEY.publicKey())!;
  const balance = await s.request('GET', `${base('xlm')}/balance`);
  assert.deepEqual(balance.body.data, { balance: Number(account.balance), unit: 'stroop' });
  const status = await s.request('GET', `${base('xlm')}/status`);
  const { disabled_reason: _d, rpc, balance_watch: _b, ...xlmStatus } = status.body.data;
  assert.deepEqual(rpc, { available: true, urls: 1, urls_up: 1 });
  assert.deepEqual(xlmStatus, {
    network_type: 'stellar',
    balance: String(account.balance),
    pending_transactions_count: 0,
    last_confirmed_transaction_timestamp: null,
    system_disabled: false,
    paused: false,
    sequence_number: String(account.seq),
  });
  const fresh = await s.request('GET', `${base('xlm-new')}/status`);
  assert.equal(fresh.body.data.balance, '0');
  assert.equal(fresh.body.data.sequence_number, '0');
  assert.equal((await s.request('GET', `${base('xlm-paused')}/status`)).body.data.paused, true);
});

test('simulated networks: rpc passes reads through, keeps node errors, refuses sends, and answers -33002 when no URL answers', async (t) => {
  solana.airdrop(SOLANA_RELAYER, 1_000_000n);
  const s = await start(t);
  const lamports = await s.request('POST', `${base('sol')}/rpc`, {
    body: { jsonrpc: '2.0', id: 9, method: 'getBalance', params: [SOLANA_RELAYER] },
  });
  assert.equal(lamports.status, 200, lamports.text);
  assert.equal(lamports.body.id, 9);
  assert.equal(lamports.body.result.value, Number(solana.balance(SOLANA_RELAYER)));
  assert.equal(typeof lamports.body.result.context.slot, 'number');

  const ledger = await s.request('POST', `${base('xlm')}/rpc`, {
    body: { jsonrpc: '2.0', id: 'l', method: 'getLatestLedger' },
  });
  assert.deepEqual([ledger.body.id, ledger.body.result.sequence], ['l', stellar.ledger]);
  // getEvents is a read the simulated node does not implement: its own error comes back as it sent it.
  const events = await s.request('POST', `${base('xlm')}/rpc`, {
    body: { id: 2, method: 'getEvents', params: { startLedger: 1 } },
  });
  assert.deepEqual(events.body, {
    jsonrpc: '2.0',
    error: { code: -32601, message: 'method not found', description: 'method not found' },
    id: 2,
  });

  for (const [relayer, method] of [
    ['sol', 'sendTransaction'],
    ['sol', 'requestAirdrop'],
    ['xlm', 'sendTransaction'],
  ]) {
    const before = (relayer === 'sol' ? solana.calls : stellar.calls).get(method) ?? 0;
    const res = await s.request('POST', `${base(relayer!)}/rpc`, {
      body: { id: 1, method, params: relayer === 'sol' ? [] : {} },
    });
    assert.equal(res.body.error.code, -32601, `${relayer} ${method}`);
    assert.match(res.body.error.description, /is not passed through the relayer's rpc route/);
    assert.equal((relayer === 'sol' ? solana.calls : stellar.calls).get(method) ?? 0, before, 'the node never saw it');
  }
  const down = await s.request('POST', `${base('sol-dead')}/rpc`, { body: { id: 4, method: 'getSlot' } });
  assert.equal(down.status, 200);
  assert.equal(down.body.error.code, -33002);
  assert.equal(down.body.error.message, 'Bad gateway');
  assert.match(down.body.error.description, /^network 'solana-dead': getSlot failed/);
  const paused = await s.request('POST', `${base('xlm-paused')}/rpc`, { body: { method: 'getLatestLedger' } });
  assert.equal(paused.status, 403);
});

test('simulated Stellar: sign-transaction adds the relayer signature to the envelope as given (signedXdr, signature)', async (t) => {
  const s = await start(t);
  const unsigned = stellarXdr();
  const res = await s.request('POST', `${base('xlm')}/sign-transaction`, { body: { unsigned_xdr: unsigned } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body.data), ['signedXdr', 'signature']);
  const signed = TransactionBuilder.fromXDR(res.body.data.signedXdr, stellar.passphrase);
  const original = TransactionBuilder.fromXDR(unsigned, stellar.passphrase);
  assert.equal(signed.hash().toString('hex'), original.hash().toString('hex'), 'sequence, fee and source untouched');
  assert.equal(signed.signatures.length, 1);
  const signature = signed.signatures[0]!.signature();
  assert.equal(res.body.data.signature, signature.toString('base64'));
  assert.ok(STELLAR_KEY.verify(signed.hash(), signature), "the relayer's key signed the network hash");
  assert.ok(!s.rawLogs().includes(STELLAR_KEY.secret()) && !res.text.includes(STELLAR_KEY.secret()));
});

test('simulated Solana: sign-transaction signs as fee payer and answers the signed transaction and its signature', async (t) => {
  const s = await start(t);
  const res = await s.request('POST', `${base('sol')}/sign-transaction`, {
    body: { transaction: solanaTx(SOLANA_RELAYER) },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body.data), ['transaction', 'signature']);
  const tx = getTransactionDecoder().decode(Buffer.from(res.body.data.transaction, 'base64'));
  const signature = tx.signatures[SOLANA_RELAYER as Address]!;
  assert.equal(res.body.data.signature, getBase58Decoder().decode(signature));
  assert.ok(
    ed25519Verifies(
      new Uint8Array(getAddressEncoder().encode(address(SOLANA_RELAYER))),
      new Uint8Array(tx.messageBytes),
      new Uint8Array(signature),
    ),
  );
  assert.ok(!s.rawLogs().includes(SOLANA_SEED) && !res.text.includes(SOLANA_SEED));
});

test('sign-transaction refuses bad input, other shapes and signers without a key, with the reason', async (t) => {
  const s = await start(t);
  const cases: Array<[string, unknown, number, RegExp]> = [
    [
      'xlm',
      { unsigned_xdr: 'AAAAAgAAAAB=' },
      400,
      /^'unsigned_xdr' is not a Stellar transaction envelope in base64 XDR/,
    ],
    ['xlm', { unsigned_xdr: '' }, 400, /'unsigned_xdr' must NOT have fewer than 1 characters/],
    ['xlm', { unsigned_xdr: stellarXdr(), extra: 1 }, 400, /unknown field 'extra'/],
    ['xlm', { transaction: solanaTx(SOLANA_RELAYER) }, 400, /^Invalid request type for Stellar relayer$/],
    ['xlm', [1, 2], 400, /^Invalid request type for Stellar relayer$/],
    [
      'xlm',
      { xdr: 'x' },
      400,
      /the body must be \{ "unsigned_xdr": .* for a Stellar relayer or \{ "transaction": .* for a Solana relayer/,
    ],
    ['xlm', [1, 300], 400, /an array body is the transaction's bytes: item 1 must be an integer from 0 to 255/],
    ['sol', { unsigned_xdr: stellarXdr() }, 400, /^Invalid request type for Solana relayer$/],
    ['sol', { transaction: 'not base64!' }, 400, /^'transaction' is not a serialized Solana transaction in base64/],
    [
      'sol',
      { transaction: solanaTx(SOLANA_ADDRESS) },
      400,
      new RegExp(`^Transaction fee payer ${SOLANA_ADDRESS} does not match relayer address ${SOLANA_RELAYER}`),
    ],
    [
      'sol-watch',
      { transaction: solanaTx(SOLANA_ADDRESS) },
      400,
      /relayer 'sol-watch' cannot sign: its signer 'solana-address' has an address but no key/,
    ],
    ['xlm-paused', { unsigned_xdr: stellarXdr() }, 403, /^Relayer paused$/],
  ];
  for (const [relayer, body, status, reason] of cases) {
    const res = await s.request('POST', `${base(relayer)}/sign-transaction`, { body });
    assert.equal(res.status, status, `${relayer} ${JSON.stringify(body).slice(0, 60)}: ${res.text}`);
    assert.equal(res.body.success, false);
    assert.match(res.body.error, reason);
  }
  const none = await s.request('POST', `${base('xlm')}/sign-transaction`);
  assert.equal(none.status, 400);
  assert.match(none.body.error, /a JSON request body is required/);
});

test("simulated Solana: the reference's own relayer methods on rpc (signTransaction, getSupportedTokens, getFeaturesEnabled)", async (t) => {
  const s = await start(t);
  const rpc = (method: string, params?: unknown) =>
    s.request('POST', `${base('sol')}/rpc`, {
      body: { jsonrpc: '2.0', id: 5, method, ...(params === undefined ? {} : { params }) },
    });
  const signed = await rpc('signTransaction', { transaction: solanaTx(SOLANA_RELAYER) });
  assert.equal(signed.status, 200, signed.text);
  const tx = getTransactionDecoder().decode(Buffer.from(signed.body.result.transaction, 'base64'));
  const signature = tx.signatures[SOLANA_RELAYER as Address]!;
  assert.equal(signed.body.result.signature, getBase58Decoder().decode(signature));
  assert.ok(
    ed25519Verifies(
      new Uint8Array(getAddressEncoder().encode(address(SOLANA_RELAYER))),
      new Uint8Array(tx.messageBytes),
      new Uint8Array(signature),
    ),
  );
  assert.equal(signed.body.result.method, 'signTransaction', 'each result names its method, as the reference');
  assert.deepEqual((await rpc('getFeaturesEnabled', {})).body, {
    jsonrpc: '2.0',
    result: { method: 'getFeaturesEnabled', features: ['gasless'] },
    id: 5,
  });
  assert.deepEqual((await rpc('getSupportedTokens', {})).body.result, { method: 'getSupportedTokens', tokens: [] });

  const wrongPayer = await rpc('signTransaction', { transaction: solanaTx(SOLANA_ADDRESS) });
  assert.deepEqual(wrongPayer.body.error, {
    code: -32602,
    message: 'INVALID_PARAMS',
    description: `Transaction fee payer ${SOLANA_ADDRESS} does not match relayer address ${SOLANA_RELAYER}`,
  });
  const noParams = await rpc('signTransaction');
  assert.equal(noParams.body.error.code, -32602);
  assert.match(noParams.body.error.description, /params must be \{ "transaction"/);
  // The fee-token methods are answered (test/chains/solana/fee-token.test.ts), their params checked first.
  for (const method of ['feeEstimate', 'prepareTransaction']) {
    const res = await rpc(method, { transaction: solanaTx(SOLANA_RELAYER), fee_token: 'x' });
    assert.deepEqual(
      res.body.error,
      { code: -32602, message: 'INVALID_PARAMS', description: 'Invalid token mint address' },
      method,
    );
  }
  // Stellar and EVM relayers have no such methods: refused as any method that is not a read.
  const stellarSign = await s.request('POST', `${base('xlm')}/rpc`, {
    body: { id: 1, method: 'signTransaction', params: {} },
  });
  assert.equal(stellarSign.body.error.code, -32601);
  assert.equal(stellarSign.body.error.message, 'Method not found');
});
