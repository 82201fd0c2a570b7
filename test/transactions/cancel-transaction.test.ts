import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTransaction } from 'viem';
import { buildWithRelayers, EVM_ADDRESS, evmBody, IN_FLIGHT, stellarBody, txPath } from './fixtures.ts';

test('a pending transaction is canceled with a reason, and the change is final', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  const res = await s.request('DELETE', txPath('stellar', sent.id));
  assert.equal(res.status, 200);
  assert.equal(res.body.data.status, 'canceled');
  assert.equal(res.body.data.status_reason, 'canceled by request');
  assert.equal(res.body.data.id, sent.id);
  assert.deepEqual((await s.request('GET', txPath('stellar', sent.id))).body.data, res.body.data);
  const again = await s.request('DELETE', txPath('stellar', sent.id));
  assert.equal(again.status, 400);
  assert.match(again.body.error, /is canceled; only pending transactions can be canceled/);
});

test('a sent EVM transaction is canceled by a NOOP under its nonce with higher fees; a second cancel is refused', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody({ value: 5 }) })).body.data;
  const res = await s.request('DELETE', txPath('evm', sent.id));
  assert.equal(res.status, 200, res.text);
  const tx = res.body.data;
  assert.equal(tx.is_canceled, true);
  assert.equal(tx.status, 'sent', 'the NOOP waits for its broadcast; it ends canceled once mined');
  assert.equal(tx.nonce, sent.nonce);
  assert.deepEqual(tx.hashes, [sent.hash, tx.hash]);
  assert.deepEqual(tx.noop_hashes, [tx.hash]);
  const noop = parseTransaction(tx.raw);
  assert.equal(noop.nonce, sent.nonce);
  assert.equal(noop.to?.toLowerCase(), EVM_ADDRESS.toLowerCase());
  assert.equal(noop.value ?? 0n, 0n);
  assert.ok(noop.maxFeePerGas! >= (BigInt(sent.max_fee_per_gas) * 11n) / 10n);
  assert.ok(noop.maxPriorityFeePerGas! >= (BigInt(sent.max_priority_fee_per_gas) * 11n) / 10n);
  const again = await s.request('DELETE', txPath('evm', sent.id));
  assert.equal(again.status, 400);
  assert.match(again.body.error, /is already being canceled/);
});

test('sent, submitted and final Stellar transactions are not canceled; the answer says the status', async (t) => {
  const s = await buildWithRelayers(t);
  await s.app.jobs.close(); // the statuses are set by the test, not by the relay
  const sent = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  for (const status of ['sent', 'submitted', 'mined', 'confirmed', 'failed', 'expired']) {
    s.app.db
      .prepare("UPDATE transactions SET status = ?, record = json_set(record, '$.status', ?) WHERE id = ?")
      .run(status, status, sent.id);
    const res = await s.request('DELETE', txPath('stellar', sent.id));
    assert.equal(res.status, 400, status);
    assert.equal(res.body.message, 'Bad Request');
    assert.match(res.body.error, new RegExp(`is ${status}; only pending`));
  }
});

test('canceling an unknown transaction, or one of another relayer, answers 404 Not found', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  for (const path of [txPath('evm', 'nope'), txPath('evm-legacy', sent.id)]) {
    const res = await s.request('DELETE', path);
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'Not found');
  }
  assert.ok(IN_FLIGHT.includes((await s.request('GET', txPath('evm', sent.id))).body.data.status));
});

test('a canceled transaction keeps its nonce: the next send does not reuse it', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  await s.request('DELETE', txPath('evm', sent.id));
  const next = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  assert.equal(next.nonce, sent.nonce + 1);
});
