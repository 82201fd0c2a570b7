// GET …/transactions/by-nonce/{nonce} and DELETE …/transactions/pending: the answers that do not need a chain to
// move (validation, network types, paused, unknown relayer, route order). The EVM lifecycle of both is in
// test/transactions/lifecycle/pending-and-nonce.test.ts against a real anvil.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, evmBody, stellarBody, txPath } from './fixtures.ts';

const byNonce = (relayer: string, nonce: string) => `/api/v1/relayers/${relayer}/transactions/by-nonce/${nonce}`;
const pending = (relayer: string) => `/api/v1/relayers/${relayer}/transactions/pending`;

test('by-nonce: found, not found with the reference text, a nonce that is not a u64 refused precisely', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody({ value: 3 }) })).body.data;
  const found = await s.request('GET', byNonce('evm', String(sent.nonce)));
  assert.equal(found.status, 200, found.text);
  // The same record as by id; its status may move (sent → submitted) between the two reads, so that part is left out.
  const still = ({ status, status_reason, sent_at, confirmed_at, ...rest }: Record<string, unknown>) => rest;
  const byId = (await s.request('GET', txPath('evm', sent.id))).body;
  assert.deepEqual(
    { ...found.body, data: still(found.body.data) },
    { success: true, data: still(byId.data), error: null },
  );
  assert.equal(
    (await s.request('GET', byNonce('evm', `00${sent.nonce}`))).body.data.id,
    sent.id,
    'leading zeros read as the same number, as a u64 parse does',
  );

  const missing = await s.request('GET', byNonce('evm', '999'));
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, {
    success: false,
    data: null,
    error: 'Transaction with nonce 999 not found',
    message: 'Not found',
  });
  const top = await s.request('GET', byNonce('evm', '18446744073709551615'));
  assert.equal(top.status, 404, 'the largest u64 is a valid nonce that nothing holds');
  assert.equal(top.body.error, 'Transaction with nonce 18446744073709551615 not found');

  for (const bad of ['abc', '-1', '1.5', '1e3', '0x10', '%20%37', '18446744073709551616', '+5']) {
    const res = await s.request('GET', byNonce('evm', bad));
    assert.equal(res.status, 400, `${bad}: ${res.text}`);
    assert.equal(res.body.error, "'nonce' must be a non-negative integer (u64) in decimal digits", bad);
    assert.equal(res.body.message, 'Bad Request');
  }
  const unknown = await s.request('GET', byNonce('nobody', '0'));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.message, 'Relayer with ID nobody not found');
  assert.equal((await s.request('POST', byNonce('evm', '0'), { body: {} })).status, 405);
});

test('by-nonce on Solana and Stellar relayers answers 501 with the reference text', async (t) => {
  const s = await buildWithRelayers(t);
  for (const relayer of ['solana', 'stellar']) {
    const res = await s.request('GET', byNonce(relayer, '0'));
    assert.equal(res.status, 501, res.text);
    assert.deepEqual(res.body, {
      success: false,
      data: null,
      error: 'Nonce lookup only supported for EVM networks',
      message: 'Not Implemented',
    });
  }
});

test('delete pending is its own route (never a transaction id), refused on Solana, for a paused or unknown relayer', async (t) => {
  const s = await buildWithRelayers(t);
  const none = await s.request('DELETE', pending('evm'));
  assert.equal(none.status, 200, none.text);
  assert.deepEqual(none.body, {
    success: true,
    data: { queued_for_cancellation_transaction_ids: [], failed_to_queue_transaction_ids: [], total_processed: 0 },
    error: null,
  });

  const solana = await s.request('DELETE', pending('solana'));
  assert.equal(solana.status, 400);
  assert.equal(solana.body.error, 'Delete pending transactions not supported for Solana relayers');
  const paused = await s.request('DELETE', pending('evm-paused'));
  assert.equal(paused.status, 403);
  assert.equal(paused.body.error, 'Relayer paused');
  const unknown = await s.request('DELETE', pending('nobody'));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.message, 'Relayer with ID nobody not found');
  // GET and PUT of `pending` stay the transaction routes, as in the reference: no such transaction.
  assert.equal((await s.request('GET', txPath('evm', 'pending'))).status, 404);
});

test('delete pending on Stellar cancels what the relayer has not sent yet (the reference cancels nothing there)', async (t) => {
  const s = await buildWithRelayers(t);
  // The Stellar network's RPC does not answer: the sends stay pending.
  const a = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  const b = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  assert.equal(a.status, 'pending');
  const res = await s.request('DELETE', pending('stellar'));
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(new Set(res.body.data.queued_for_cancellation_transaction_ids), new Set([a.id, b.id]));
  assert.deepEqual(res.body.data.failed_to_queue_transaction_ids, []);
  assert.equal(res.body.data.total_processed, 2);
  for (const id of [a.id, b.id])
    assert.equal((await s.request('GET', txPath('stellar', id))).body.data.status, 'canceled');
});
