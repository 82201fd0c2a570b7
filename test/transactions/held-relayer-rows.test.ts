// The relayer rows held for the send path (src/domain/relayers/row-cache.ts): a send is checked against the relayer as
// it is when its batch is written, so a change another instance made (written here straight to the store, as that
// instance would) applies to the very next send, not one second later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, evmBody } from './fixtures.ts';

const OTHER = '0x0000000000000000000000000000000000000001';

test('a receiver whitelist set by another instance applies to the next send, though the row was held; so does its removal', async (t) => {
  const s = await buildWithRelayers(t);
  const first = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  await s.app.store.repos.relayers.update('evm', { policies: { whitelist_receivers: [OTHER] } });
  const second = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() });
  assert.equal(second.status, 400, JSON.stringify(second.body));
  assert.match(second.body.error, /whitelist_receivers/);
  const third = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody({ to: OTHER }) });
  assert.equal(third.status, 200, JSON.stringify(third.body));
  await s.app.store.repos.relayers.update('evm', { policies: null });
  const fourth = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() });
  assert.equal(fourth.status, 200, JSON.stringify(fourth.body));
});

test('a pause by another instance refuses the next send with the paused error; a delete answers 404', async (t) => {
  const s = await buildWithRelayers(t);
  assert.equal((await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() })).status, 200);
  await s.app.store.repos.relayers.update('evm', { paused: true });
  const paused = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() });
  assert.equal(paused.status, 400, JSON.stringify(paused.body));
  assert.match(paused.body.error, /paused/);
  await s.app.store.repos.relayers.update('evm', { paused: false });
  assert.equal((await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() })).status, 200);
  await s.app.store.repos.relayers.remove('evm');
  const gone = await s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() });
  assert.equal(gone.status, 404, JSON.stringify(gone.body));
});

test('concurrent sends on a held row still get contiguous nonces', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = await Promise.all(
    Array.from({ length: 40 }, () => s.request('POST', '/api/v1/relayers/evm/transactions', { body: evmBody() })),
  );
  for (const r of sent) assert.equal(r.status, 200, JSON.stringify(r.body));
  const nonces = sent.map((r) => r.body.data.nonce as number).sort((a, b) => a - b);
  assert.deepEqual(
    nonces,
    Array.from({ length: 40 }, (_, i) => nonces[0]! + i),
  );
});
