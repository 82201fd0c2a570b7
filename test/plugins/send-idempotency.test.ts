// A plugin's sendTransaction(tx, { idempotencyKey }): the same key sends once, through the same path as the HTTP header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const TX = `{ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' }`;
const SEND_TWICE = `export async function handler({ api }) {
  const relayer = api.useRelayer('sepolia-example');
  const first = await relayer.sendTransaction(${TX}, { idempotencyKey: 'plugin-order-1' });
  const again = await relayer.sendTransaction(${TX}, { idempotencyKey: 'plugin-order-1' });
  const racing = await Promise.all([1, 2, 3].map(() => relayer.sendTransaction(${TX}, { idempotencyKey: 'plugin-order-2' })));
  const refusals = [];
  for (const key of [42, '', 'x'.repeat(256), 'caf\u00e9']) {
    try { await relayer.sendTransaction(${TX}, { idempotencyKey: key }); refusals.push('sent'); }
    catch (e) { refusals.push(e.code + ': ' + e.message); }
  }
  let reused;
  try { await relayer.sendTransaction({ ...${TX}, value: 2 }, { idempotencyKey: 'plugin-order-1' }); }
  catch (e) { reused = { code: e.code, status: e.status }; }
  return { first: first.id, again: again.id, racing: racing.map((t) => t.id), waits: typeof again.wait, refusals, reused };
}`;

test('a plugin sending twice with one idempotency key creates one transaction; a bad key is refused with the reason', async (t) => {
  const s = await build(t, { devnet: true, plugins: { 'send-twice.ts': SEND_TWICE } });
  const res = await s.request('POST', '/api/v1/plugins/send-twice/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  const d = res.body.data;
  assert.equal(d.again, d.first);
  assert.equal(new Set(d.racing).size, 1, 'concurrent sends with one key: one transaction');
  assert.notEqual(d.racing[0], d.first);
  assert.equal(d.waits, 'function', 'a replayed answer can be waited on too');
  assert.deepEqual(
    d.refusals,
    Array(4).fill('VALIDATION_FAILED: idempotencyKey must be a string of 1 to 255 printable ASCII characters'),
  );
  assert.deepEqual(d.reused, { code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
  const list = await s.request('GET', '/api/v1/relayers/sepolia-example/transactions?per_page=1');
  assert.equal(list.body.pagination.total_items, 2);

  // The HTTP header shares the plugin's keys on the relayer.
  const http = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', {
    body: { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' },
    headers: { 'idempotency-key': 'plugin-order-1' },
  });
  assert.equal(http.status, 200, http.text);
  assert.equal(http.body.data.id, d.first);
  assert.equal(http.headers.get('idempotent-replayed'), 'true');
});
