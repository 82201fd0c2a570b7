import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseTransaction } from 'viem';
import { buildWithRelayers, evmBody, txPath } from './fixtures.ts';

test('50 concurrent sends get 50 distinct, gap-free nonces and strictly increasing created_at', async (t) => {
  const s = await buildWithRelayers(t);
  const results = await Promise.all(
    Array.from({ length: 50 }, () => s.request('POST', txPath('evm'), { body: evmBody() })),
  );
  for (const r of results) assert.equal(r.status, 200, r.text);
  const txs = results.map((r) => r.body.data);
  const nonces = txs.map((tx) => tx.nonce).sort((a, b) => a - b);
  assert.deepEqual(
    nonces,
    Array.from({ length: 50 }, (_, i) => i),
  );
  for (const tx of txs) assert.equal(Number(parseTransaction(tx.raw).nonce), tx.nonce);
  const byNonce = [...txs].sort((a, b) => a.nonce - b.nonce);
  for (let i = 1; i < byNonce.length; i++)
    assert.ok(byNonce[i].created_at > byNonce[i - 1].created_at, 'created_at strictly increases');

  const next = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(next.body.data.nonce, 50);
  const list = await s.request('GET', `${txPath('evm')}?per_page=1`);
  assert.equal(list.body.pagination.total_items, 51);
});

test('a failed send does not consume a nonce, and nonces survive a restart', async (t) => {
  const first = await buildWithRelayers(undefined as never);
  const dataDir = first.dataDir;
  t.after(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));
  try {
    await first.request('POST', txPath('evm'), { body: evmBody() });
    const refused = await first.request('POST', txPath('evm'), { body: evmBody({ max_fee_per_gas: 1 }) });
    assert.equal(refused.status, 400);
    const second = await first.request('POST', txPath('evm'), { body: evmBody() });
    assert.equal(second.body.data.nonce, 1);
  } finally {
    await first.app.close();
  }
  const again = await buildWithRelayers(t, { dataDir });
  const third = await again.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(third.body.data.nonce, 2);
  const all = await again.request('GET', txPath('evm'));
  assert.equal(all.body.pagination.total_items, 3);
});
