import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTransaction, recoverTransactionAddress } from 'viem';
import { API_KEY, build } from '../helper.ts';
import {
  buildWithRelayers,
  EVM_ADDRESS,
  evmBody,
  solanaTransaction,
  stellarBody,
  testConfig,
  TO,
  txPath,
} from './fixtures.ts';

/** A record without what its broadcast changes (the relayer broadcasts in the background). */
const sansBroadcast = (r: Record<string, unknown>) => ({ ...r, status: null, sent_at: null });

test('replace keeps id and nonce, re-signs with the new fields and keeps the hash history', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  const res = await s.request('PUT', txPath('evm', sent.id), {
    body: evmBody({
      value: 42,
      data: '0x01',
      gas_limit: 30_000,
      max_fee_per_gas: 22_000_000_000,
      max_priority_fee_per_gas: 1_100_000_000,
    }),
  });
  assert.equal(res.status, 200, res.text);
  const tx = res.body.data;
  assert.equal(tx.id, sent.id);
  assert.equal(tx.nonce, sent.nonce);
  assert.equal(tx.created_at, sent.created_at);
  assert.equal(tx.value, '42');
  assert.equal(tx.data, '0x01');
  assert.equal(tx.max_fee_per_gas, '22000000000');
  assert.notEqual(tx.hash, sent.hash);
  assert.deepEqual(tx.hashes, [sent.hash, tx.hash]);
  const parsed = parseTransaction(tx.raw);
  assert.equal(parsed.nonce, sent.nonce);
  assert.equal(parsed.value, 42n);
  assert.equal(await recoverTransactionAddress({ serializedTransaction: tx.raw }), EVM_ADDRESS);
  assert.deepEqual(sansBroadcast((await s.request('GET', txPath('evm', sent.id))).body.data), sansBroadcast(tx));
});

test('explicit prices must be at least 10% above the previous ones, else 400 naming the minimum', async (t) => {
  const s = await buildWithRelayers(t);
  const legacy = (await s.request('POST', txPath('evm'), { body: { value: 1, to: TO, gas_price: 100_000_000_000 } }))
    .body.data;
  const low = await s.request('PUT', txPath('evm', legacy.id), {
    body: { value: 1, to: TO, gas_price: 109_999_999_999 },
  });
  assert.equal(low.status, 400);
  assert.equal(low.body.message, 'Bad Request');
  assert.match(
    low.body.error,
    /'gas_price' must be at least 110000000000 to replace this transaction \(10% above the previous 100000000000\)/,
  );
  const ok = await s.request('PUT', txPath('evm', legacy.id), {
    body: { value: 1, to: TO, gas_price: 110_000_000_000 },
  });
  assert.equal(ok.status, 200);
  // Small prices (old + 1 wins over old × 1.1) are in test/transactions/evm-pricing.test.ts: a devnet refuses them.

  const eip = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  const lowTip = await s.request('PUT', txPath('evm', eip.id), {
    body: evmBody({ max_fee_per_gas: 22_000_000_000, max_priority_fee_per_gas: 1_099_999_999 }),
  });
  assert.match(lowTip.body.error, /'max_priority_fee_per_gas' must be at least 1100000000/);
  const lowCap = await s.request('PUT', txPath('evm', eip.id), {
    body: evmBody({ max_fee_per_gas: 21_999_999_999, max_priority_fee_per_gas: 1_100_000_000 }),
  });
  assert.match(lowCap.body.error, /'max_fee_per_gas' must be at least 22000000000/);
});

test('speed-priced replacements are raised to the 10% minimum', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: { value: 1, to: TO, speed: 'fastest' } })).body.data;
  const res = await s.request('PUT', txPath('evm', sent.id), { body: { value: 1, to: TO, speed: 'safeLow' } });
  assert.equal(res.status, 200, res.text);
  // The chain's safeLow prices are below the first send's 'fastest' ones, so the bump decides.
  const bump = (old: string) => String((BigInt(old) * 11n + 9n) / 10n);
  assert.equal(res.body.data.max_fee_per_gas, bump(sent.max_fee_per_gas));
  assert.equal(res.body.data.max_priority_fee_per_gas, bump(sent.max_priority_fee_per_gas));
  assert.equal(res.body.data.speed, 'safeLow');
});

test('a transaction of another relayer, an unknown one, or an unknown relayer answer 404 Not found', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  for (const path of [txPath('evm-legacy', sent.id), txPath('evm', 'missing'), txPath('ghost', sent.id)]) {
    const res = await s.request('PUT', path, {
      body: evmBody({ max_fee_per_gas: 5e9, max_priority_fee_per_gas: 2e9 }),
    });
    assert.equal(res.status, 404, path);
    assert.deepEqual(
      { success: res.body.success, data: res.body.data, message: res.body.message },
      { success: false, data: null, message: 'Not found' },
    );
  }
  const get = await s.request('GET', txPath('evm-legacy', sent.id));
  assert.equal(get.status, 404);
});

test('replace answers 400 Bad Request for an invalid body and 401 Unauthorized without a valid token', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  const bad = await s.request('PUT', txPath('evm', sent.id), { body: { value: 'lots', to: TO, gas_price: 1 } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.message, 'Bad Request');
  assert.match(bad.body.error, /'value'/);
  for (const auth of [false, 'Bearer nope'] as const) {
    const res = await s.request('PUT', txPath('evm', sent.id), { auth, body: evmBody() });
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Unauthorized');
    assert.equal(res.body.data, null);
  }
});

test('replace and list answer 429 Too Many Requests with Retry-After beyond the rate limit', async (t) => {
  const s = await build(t, { config: testConfig, env: { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '1' } });
  let limited: Awaited<ReturnType<typeof s.request>> | undefined;
  for (let i = 0; i < 5 && !limited; i++) {
    const res = await s.request('PUT', txPath('evm', 'x'), { body: evmBody() });
    if (res.status === 429) limited = res;
  }
  assert.ok(limited, 'a 429 came back');
  assert.equal(limited.body.message, 'Too Many Requests');
  assert.equal(limited.body.success, false);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  const list = await fetch(`${s.url}${txPath('evm')}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  assert.equal(list.status, 429);
  assert.equal(((await list.json()) as { message: string }).message, 'Too Many Requests');
  assert.ok(list.headers.get('retry-after'));
});

test('only pending, sent or submitted EVM transactions can be replaced', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  s.app.db
    .prepare(
      "UPDATE transactions SET status = 'submitted', record = json_set(record, '$.status', 'submitted') WHERE id = ?",
    )
    .run(sent.id);
  const submitted = await s.request('PUT', txPath('evm', sent.id), {
    body: evmBody({ max_fee_per_gas: 30e9, max_priority_fee_per_gas: 2e9 }),
  });
  assert.equal(submitted.status, 200, submitted.text);
  assert.equal(submitted.body.data.status, 'sent', 'the new version waits for its broadcast');
  for (const status of ['confirmed', 'failed', 'expired', 'mined']) {
    s.app.db
      .prepare("UPDATE transactions SET status = ?, record = json_set(record, '$.status', ?) WHERE id = ?")
      .run(status, status, sent.id);
    const res = await s.request('PUT', txPath('evm', sent.id), {
      body: evmBody({ max_fee_per_gas: 90e9, max_priority_fee_per_gas: 5e9 }),
    });
    assert.equal(res.status, 400, status);
    assert.match(
      res.body.error,
      new RegExp(`is ${status}; only pending, sent, submitted evm transactions can be replaced`),
    );
  }
  const other = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  await s.request('DELETE', txPath('evm', other.id));
  const canceled = await s.request('PUT', txPath('evm', other.id), {
    body: evmBody({ max_fee_per_gas: 9e9, max_priority_fee_per_gas: 5e9 }),
  });
  assert.equal(canceled.status, 400);
  assert.match(canceled.body.error, /is canceled/);
});

test('Solana and Stellar transactions are replaced while pending, and refused after', async (t) => {
  const s = await buildWithRelayers(t);
  await s.app.jobs.close(); // nothing moves them on: they stay pending until the test says otherwise
  const sol = (
    await s.request('POST', txPath('solana'), {
      body: { transaction: solanaTransaction(s.solana.svm.latestBlockhash()) },
    })
  ).body.data;
  const solReplaced = await s.request('PUT', txPath('solana', sol.id), {
    body: { transaction: solanaTransaction(s.solana.svm.latestBlockhash()) },
  });
  assert.equal(solReplaced.status, 200, solReplaced.text);
  assert.equal(solReplaced.body.data.id, sol.id);
  const wrongShape = await s.request('PUT', txPath('solana', sol.id), { body: evmBody() });
  assert.equal(wrongShape.status, 400);

  const xlm = (await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data;
  const xlmReplaced = await s.request('PUT', txPath('stellar', xlm.id), {
    body: stellarBody({ memo: { type: 'text', value: 'v2' } }),
  });
  assert.equal(xlmReplaced.status, 200, xlmReplaced.text);
  assert.deepEqual(xlmReplaced.body.data.memo, { type: 'text', value: 'v2' });

  for (const [relayer, id] of [
    ['solana', sol.id],
    ['stellar', xlm.id],
  ]) {
    s.app.db
      .prepare("UPDATE transactions SET status = 'sent', record = json_set(record, '$.status', 'sent') WHERE id = ?")
      .run(id);
    const body =
      relayer === 'solana' ? { transaction: solanaTransaction(s.solana.svm.latestBlockhash()) } : stellarBody();
    const res = await s.request('PUT', txPath(relayer, id), { body });
    assert.equal(res.status, 400);
    assert.match(res.body.error, new RegExp(`is sent; only pending ${relayer} transactions can be replaced`));
  }
});

test('two concurrent replaces are serialized: both answers agree with the final record', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: { value: 1, to: TO, gas_price: 10_000_000_000 } })).body
    .data;
  // Both clear the bump over the original; only one can also clear it over the other.
  const [a, b] = await Promise.all([
    s.request('PUT', txPath('evm', sent.id), { body: { value: 2, to: TO, gas_price: 11_000_000_000 } }),
    s.request('PUT', txPath('evm', sent.id), { body: { value: 3, to: TO, gas_price: 13_000_000_000 } }),
  ]);
  const final = (await s.request('GET', txPath('evm', sent.id))).body.data;
  const ok = [a, b].filter((r) => r.status === 200);
  assert.ok(ok.length >= 1);
  const last = ok.find((r) => r.body.data.hash === final.hash);
  assert.ok(last, 'the final record is one that a replace returned');
  assert.deepEqual(sansBroadcast(last.body.data), sansBroadcast(final));
  assert.equal(final.hashes.length, ok.length + 1);
  assert.equal(final.hashes[0], sent.hash);
  for (const r of [a, b]) if (r.status !== 200) assert.match(r.body.error, /must be at least/);

  const [c, d] = await Promise.all([
    s.request('PUT', txPath('evm', sent.id), { body: { value: 4, to: TO, speed: 'fast' } }),
    s.request('PUT', txPath('evm', sent.id), { body: { value: 5, to: TO, speed: 'fast' } }),
  ]);
  assert.equal(c.status, 200);
  assert.equal(d.status, 200);
  const end = (await s.request('GET', txPath('evm', sent.id))).body.data;
  const [first, second] = [c, d].sort(
    (x, y) => end.hashes.indexOf(x.body.data.hash) - end.hashes.indexOf(y.body.data.hash),
  );
  assert.deepEqual(sansBroadcast(second!.body.data), sansBroadcast(end));
  assert.ok(BigInt(second!.body.data.max_fee_per_gas) >= (BigInt(first!.body.data.max_fee_per_gas) * 11n) / 10n);
  assert.equal(end.nonce, sent.nonce);
});
