import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const SEND = `export const settings = { emit_traces: true, emit_logs: true };
export async function handler({ api, params }) {
  const relayer = api.useRelayer(params.relayerId);
  const tx = await relayer.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' });
  const again = await relayer.getTransaction({ transactionId: tx.id });
  const list = await relayer.listTransactions({ page: 1, per_page: 10 });
  return { id: tx.id, same: again.id === tx.id, listed: list.items.some((x) => x.id === tx.id), hasWait: typeof tx.wait === 'function' };
}`;

const CATCH = `export async function handler({ api }) {
  try { await api.useRelayer('no-such-relayer').getRelayer(); return 'unexpected'; }
  catch (e) { return { name: e.name, code: e.code, status: e.status, message: e.message }; }
}`;

test('api.useRelayer sends a transaction through the same domain code as the HTTP API, one trace per call', async (t) => {
  const s = await build(t, { devnet: true, plugins: { 'send.ts': SEND } });
  const res = await s.request('POST', '/api/v1/plugins/send/call', {
    body: { params: { relayerId: 'sepolia-example' } },
    headers: { 'x-request-id': 'trace-me' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.same, true);
  assert.equal(res.body.data.listed, true);
  assert.equal(res.body.data.hasWait, true);
  const traces = res.body.metadata.traces;
  assert.deepEqual(
    traces.map((x: { method: string }) => x.method),
    ['sendTransaction', 'getTransaction', 'listTransactions'],
  );
  assert.deepEqual(traces[0], {
    method: 'sendTransaction',
    relayerId: 'sepolia-example',
    requestId: 'trace-me',
    payload: { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' },
  });
  const http = await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${res.body.data.id}`);
  assert.equal(http.status, 200, 'the transaction is visible through the HTTP API');
});

test('a relayer API failure rejects with a catchable error carrying the HTTP reason, code and status', async (t) => {
  const s = await build(t, { plugins: { 'catch.ts': CATCH } });
  const res = await s.request('POST', '/api/v1/plugins/catch/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.code, 'RELAYER_NOT_FOUND');
  assert.equal(res.body.data.status, 404);
  assert.match(res.body.data.message, /no-such-relayer/);
});

test('an uncaught relayer API failure answers with its code and status', async (t) => {
  const s = await build(t, {
    plugins: {
      'raw.ts': `export async function handler({ api }) { return api.useRelayer('no-such-relayer').getRelayer(); }`,
    },
  });
  const res = await s.request('POST', '/api/v1/plugins/raw/call', { body: {} });
  assert.equal(res.status, 404, res.text);
  assert.equal(res.body.data.code, 'RELAYER_NOT_FOUND');
});
