import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { verifySignature } from '../../src/chains/solana/wire.ts';
import { buildWithRelayers, SOLANA_ADDRESS, solanaTransaction, txPath } from './fixtures.ts';

// The Solana network here is SIMULATED (the real SVM behind a JSON-RPC stand-in; see fixtures.ts).
test('a real serialized Solana transaction in base64 is signed by the relayer as fee payer and recorded as pending', async (t) => {
  const s = await buildWithRelayers(t);
  await s.app.jobs.close(); // only the send is under test: nothing moves it on
  const encoded = solanaTransaction(s.solana.svm.latestBlockhash());
  const res = await s.request('POST', txPath('solana'), { body: { transaction: encoded } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, 'pending');
  const decode = (wire: string) => getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(wire)));
  const signed = decode(res.body.data.transaction);
  assert.deepEqual(signed.messageBytes, decode(encoded).messageBytes, 'the same message');
  assert.ok(
    verifySignature(SOLANA_ADDRESS, signed.messageBytes, signed.signatures[SOLANA_ADDRESS as Address]!),
    'signed by the relayer',
  );
  assert.equal(res.body.data.signature.length > 80, true);
  assert.equal(res.body.data.from, SOLANA_ADDRESS);
  assert.equal(res.body.data.fee_payer, SOLANA_ADDRESS);
  assert.equal(res.body.data.nonce, undefined);
});

test('a transaction that does not decode as a Solana transaction is refused', async (t) => {
  const s = await buildWithRelayers(t);
  const valid = Buffer.from(solanaTransaction(), 'base64');
  const cases = [
    'AAAA',
    'not base64 at all!',
    Buffer.from('hello world, this is not a transaction').toString('base64'),
    valid.subarray(0, valid.length - 3).toString('base64'),
    Buffer.concat([valid, Buffer.from([1, 2, 3])]).toString('base64'),
  ];
  for (const transaction of cases) {
    const res = await s.request('POST', txPath('solana'), { body: { transaction } });
    assert.equal(res.status, 400, transaction);
    assert.equal(res.body.message, 'Bad Request');
    assert.match(res.body.error, /'transaction' is not a serialized Solana transaction in base64/);
  }
});

test('shape B takes a string transaction or the instructions form, nothing else', async (t) => {
  const s = await buildWithRelayers(t);
  const missing = await s.request('POST', txPath('solana'), { body: {} });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /Must provide either transaction or instructions/);
  const extra = await s.request('POST', txPath('solana'), { body: { transaction: solanaTransaction(), fee: 1 } });
  assert.equal(extra.status, 400);
  assert.match(extra.body.error, /unknown field 'fee'/);
  const wrongType = await s.request('POST', txPath('solana'), { body: { transaction: 5 } });
  assert.equal(wrongType.status, 400);
  assert.match(wrongType.body.error, /'transaction' must be string/);
  const evmShape = await s.request('POST', txPath('solana'), {
    body: { value: 1, to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', gas_price: 1 },
  });
  assert.equal(evmShape.status, 400);
  assert.match(evmShape.body.error, /is solana and takes request shape B .*shape A, for evm relayers/);
});
