import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, payment, STELLAR_ADDRESS, stellarBody, stellarXdr, txPath } from './fixtures.ts';

const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';

test('an operations-based payment is recorded with defaults: source = relayer, max_fee 1,000,000 stroops', async (t) => {
  const s = await buildWithRelayers(t);
  const res = await s.request('POST', txPath('stellar'), {
    body: stellarBody({ memo: { type: 'text', value: 'hello' } }),
  });
  assert.equal(res.status, 200, res.text);
  const tx = res.body.data;
  assert.equal(tx.status, 'pending');
  assert.equal(tx.network, 'stellar-testnet');
  assert.equal(tx.source_account, STELLAR_ADDRESS);
  assert.equal(tx.max_fee, '1000000');
  assert.deepEqual(tx.operations, [
    { type: 'payment', destination: STELLAR_ADDRESS, amount: '10000000', asset: { type: 'native' } },
  ]);
  assert.deepEqual(tx.memo, { type: 'text', value: 'hello' });
});

test('amounts and memo ids above 2^53 stay exact; credit assets are accepted', async (t) => {
  const s = await buildWithRelayers(t);
  const body = `{"network":"stellar-testnet","operations":[{"type":"payment","destination":"${STELLAR_ADDRESS}","amount":9223372036854775807,"asset":{"type":"credit_alphanum4","code":"USDC","issuer":"${ISSUER}"}}],"memo":{"type":"id","value":18446744073709551}, "max_fee": "9007199254740993"}`;
  const res = await s.request('POST', txPath('stellar'), {
    rawBody: body,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.operations[0].amount, '9223372036854775807');
  assert.equal(res.body.data.memo.value, '18446744073709551');
  assert.equal(res.body.data.max_fee, '9007199254740993');
});

test('a transaction_xdr must decode as an envelope; fee_bump needs it signed', async (t) => {
  const s = await buildWithRelayers(t);
  const unsigned = await s.request('POST', txPath('stellar'), {
    body: { network: 'stellar-testnet', transaction_xdr: stellarXdr() },
  });
  assert.equal(unsigned.status, 200, unsigned.text);
  assert.equal(unsigned.body.data.hash, null, 'hashed once signed with the sequence number of its turn');
  assert.equal(unsigned.body.data.fee_bump, false);

  const bumpUnsigned = await s.request('POST', txPath('stellar'), {
    body: { network: 'stellar-testnet', transaction_xdr: stellarXdr(), fee_bump: true },
  });
  assert.equal(bumpUnsigned.status, 400);
  assert.match(bumpUnsigned.body.error, /'fee_bump' requires a signed 'transaction_xdr'/);

  const bumpSigned = await s.request('POST', txPath('stellar'), {
    body: { network: 'stellar-testnet', transaction_xdr: stellarXdr({ signed: true }), fee_bump: true },
  });
  assert.equal(bumpSigned.status, 200, bumpSigned.text);
  assert.equal(bumpSigned.body.data.fee_bump, true);

  const garbage = await s.request('POST', txPath('stellar'), {
    body: { network: 'stellar-testnet', transaction_xdr: 'AAAAAgAAAAB=' },
  });
  assert.equal(garbage.status, 400);
  assert.match(garbage.body.error, /'transaction_xdr' is not a Stellar transaction envelope/);
});

test('shape C rules are enforced, each naming the field', async (t) => {
  const s = await buildWithRelayers(t);
  const bytes = (n: number) => Array.from({ length: n }, (_, i) => i);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [stellarBody({ network: 'stellar-mainnet' }), /'network' must be 'stellar-testnet', the relayer's network/],
    [{ network: 'stellar-testnet' }, /exactly one of 'operations' and 'transaction_xdr'/],
    [stellarBody({ transaction_xdr: stellarXdr() }), /exactly one of 'operations' and 'transaction_xdr'/],
    [stellarBody({ operations: [] }), /'operations' must NOT have fewer than 1 items/],
    [
      stellarBody({ operations: Array.from({ length: 101 }, () => payment()) }),
      /'operations' must NOT have more than 100 items/,
    ],
    [
      stellarBody({ operations: [payment({ type: 'create_account' })] }),
      /missing required field 'operations.0.starting_balance'/,
    ],
    [
      stellarBody({ operations: [payment({ type: 'mint' })] }),
      /'operations.0.type' must be one of: payment, create_account, change_trust, invoke_contract/,
    ],
    [
      stellarBody({ operations: [{ type: 'change_trust', asset: { type: 'native' } }] }),
      /'operations.0.asset' must be a credit asset/,
    ],
    [
      stellarBody({ operations: [{ type: 'create_account', destination: 'GNOPE', starting_balance: 1 }] }),
      /'operations.0.destination' must be a valid Stellar account/,
    ],
    [
      { network: 'stellar-testnet', transaction_xdr: stellarXdr({ signed: true }) },
      /'transaction_xdr' is signed: send it with fee_bump: true/,
    ],
    [
      stellarBody({ operations: [payment({ destination: 'GABC' })] }),
      /'operations.0.destination' must be a valid Stellar account/,
    ],
    [stellarBody({ operations: [payment({ amount: 0 })] }), /'operations.0.amount' must be greater than 0/],
    [stellarBody({ operations: [payment({ amount: -5 })] }), /'operations.0.amount'/],
    [stellarBody({ operations: [payment({ amount: '1.5' })] }), /'operations.0.amount'/],
    [
      stellarBody({ operations: [payment({ amount: '9223372036854775808' })] }),
      /'operations.0.amount' must be an integer amount in stroops \(int64\)/,
    ],
    [
      stellarBody({ operations: [payment({ asset: { type: 'credit_alphanum4', code: 'TOOLONG', issuer: ISSUER } })] }),
      /'operations.0.asset.code' must be 1-4/,
    ],
    [
      stellarBody({ operations: [payment({ asset: { type: 'credit_alphanum12', code: 'ABCDEF', issuer: 'nope' } })] }),
      /'operations.0.asset.issuer'/,
    ],
    [
      stellarBody({ operations: [payment({ asset: { type: 'credit_alphanum4' } })] }),
      /missing required field 'operations.0.asset.code'/,
    ],
    [
      stellarBody({ operations: [payment({ asset: { type: 'gold' } })] }),
      /'operations.0.asset.type' must be one of: native/,
    ],
    [stellarBody({ operations: [payment({ memo: 'x' })] }), /unknown field 'operations.0.memo'/],
    [stellarBody({ memo: { type: 'text', value: 'x'.repeat(29) } }), /'memo.value' must be at most 28 bytes/],
    [stellarBody({ memo: { type: 'text', value: 'é'.repeat(15) } }), /'memo.value' must be at most 28 bytes/],
    [stellarBody({ memo: { type: 'id', value: -1 } }), /'memo.value'/],
    [
      stellarBody({ memo: { type: 'id', value: '9223372036854775808' } }),
      /'memo.value' must be a non-negative integer \(int64\)/,
    ],
    [
      stellarBody({ memo: { type: 'hash', value: bytes(31) } }),
      /'memo.value' must be 32 bytes: an array of 32 integers 0-255, or 64 hex digits/,
    ],
    [stellarBody({ memo: { type: 'return', value: [...bytes(31), 256] } }), /'memo.value' must be 32 bytes/],
    [stellarBody({ memo: { type: 'hash', value: 'ab'.repeat(31) } }), /'memo.value' must be 32 bytes/],
    [stellarBody({ memo: { type: 'note', value: 'x' } }), /'memo.type' must be one of: none, text, id, hash, return/],
    [stellarBody({ memo: { type: 'none', value: 'x' } }), /unknown field 'memo.value'/],
    [stellarBody({ fee_bump: true }), /'fee_bump' is only valid with a signed 'transaction_xdr'/],
    [
      { network: 'stellar-testnet', transaction_xdr: stellarXdr(), memo: { type: 'none' } },
      /'memo' applies to 'operations' only/,
    ],
    [stellarBody({ max_fee: -1 }), /'max_fee'/],
    [stellarBody({ source_account: 'GNOPE' }), /'source_account' must be a valid Stellar account/],
    [stellarBody({ source_account: ISSUER }), /'source_account' \S+ does not match the relayer's address/],
    [stellarBody({ valid_until: '2001-01-01T00:00:00Z' }), /'valid_until' must be in the future/],
    [stellarBody({ extra: 1 }), /unknown field 'extra'/],
    [{ operations: [payment()] }, /missing required field 'network'/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('POST', txPath('stellar'), { body });
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 200));
    assert.match(res.body.error, reason, JSON.stringify(body).slice(0, 200));
  }
});

test('memo hash/return of 32 bytes, memo none and null optional fields are accepted', async (t) => {
  const s = await buildWithRelayers(t);
  const hash = Array.from({ length: 32 }, (_, i) => 255 - i);
  for (const memo of [
    { type: 'hash', value: hash },
    { type: 'return', value: hash },
    { type: 'hash', value: 'ab'.repeat(32) },
    { type: 'none' },
    null,
  ]) {
    const res = await s.request('POST', txPath('stellar'), {
      body: stellarBody({ memo, transaction_xdr: null, fee_bump: null, max_fee: null }),
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.memo, memo);
  }
});
