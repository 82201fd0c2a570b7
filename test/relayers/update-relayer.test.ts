import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { buildWithRelayers, evmBody, testConfig, txPath } from '../transactions/fixtures.ts';

test('PATCH sets notification_id to an existing notification, and null clears it', async (t) => {
  const s = await buildWithRelayers(t);
  const set = await s.request('PATCH', '/api/v1/relayers/evm', { body: { notification_id: 'hook-a' } });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.data.notification_id, 'hook-a');
  assert.equal((await s.request('GET', '/api/v1/relayers/evm')).body.data.notification_id, 'hook-a');
  const cleared = await s.request('PATCH', '/api/v1/relayers/evm', { body: { notification_id: null } });
  assert.equal(cleared.body.data.notification_id, null);
});

test('PATCH refuses an unknown notification, unknown fields, an empty body and an unknown relayer', async (t) => {
  const s = await buildWithRelayers(t);
  const cases: Array<[unknown, RegExp]> = [
    [{ notification_id: 'no-such-hook' }, /'notification_id': notification 'no-such-hook' does not exist/],
    [{ notification_id: 'bad id!' }, /'notification_id' must be a notification id/],
    [{ paused: 'yes' }, /'paused' must be boolean/],
    [{ nick: 'x' }, /unknown field 'nick'/],
    [{ name: '' }, /'name' must NOT have fewer than 1 characters/],
    [{ policies: { min_balance: -1 } }, /'policies.min_balance' must be/],
    [{ policies: { private_transactions: true } }, /private_transactions' cannot be true/],
    [{ policies: { allowed_programs: [] } }, /unknown field 'policies.allowed_programs'/],
    [{ custom_rpc_urls: ['ftp://x'] }, /'custom_rpc_urls.0' must be an http\(s\) URL/],
    [{}, /'body' must NOT have fewer than 1 properties/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('PATCH', '/api/v1/relayers/evm', { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  const none = await s.request('PATCH', '/api/v1/relayers/evm');
  assert.equal(none.status, 400);
  const ghost = await s.request('PATCH', '/api/v1/relayers/ghost', { body: { paused: true } });
  assert.equal(ghost.status, 404);
  assert.equal(ghost.body.message, 'Relayer with ID ghost not found');
});

test('a paused relayer refuses sends and replaces with 400 saying so; unpausing lets them through', async (t) => {
  const s = await buildWithRelayers(t);
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  const paused = await s.request('PATCH', '/api/v1/relayers/evm', { body: { paused: true } });
  assert.equal(paused.body.data.paused, true);
  const send = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(send.status, 400);
  assert.match(send.body.error, /relayer 'evm' is paused/);
  const replace = await s.request('PUT', txPath('evm', sent.id), {
    body: evmBody({ max_fee_per_gas: 5e9, max_priority_fee_per_gas: 2e9 }),
  });
  assert.equal(replace.status, 400);
  assert.match(replace.body.error, /relayer 'evm' is paused/);
  const configPaused = await s.request('POST', txPath('evm-paused'), { body: evmBody() });
  assert.match(configPaused.body.error, /relayer 'evm-paused' is paused/);
  // Reads and cancel still work while paused.
  assert.equal((await s.request('GET', txPath('evm', sent.id))).status, 200);
  await s.request('PATCH', '/api/v1/relayers/evm', { body: { paused: false } });
  const after = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(after.status, 200);
  assert.equal(after.body.data.nonce, 1);
});

test('a relayer with a notification records a transaction_update event in the same write', async (t) => {
  const s = await buildWithRelayers(t);
  await s.request('PATCH', '/api/v1/relayers/evm', { body: { notification_id: 'hook-a' } });
  const sent = (await s.request('POST', txPath('evm'), { body: evmBody() })).body.data;
  const canceled = (await s.request('DELETE', txPath('evm', sent.id))).body.data;
  const events = s.app.db
    .prepare('SELECT event, notification_id, body FROM webhook_events WHERE transaction_id = ? ORDER BY seq')
    .all(sent.id) as Array<{ event: string; notification_id: string; body: string }>;
  assert.ok(events.length >= 2, 'the send, the cancel (and the broadcast in between, if it came first)');
  assert.ok(events.every((e) => e.event === 'transaction_update' && e.notification_id === 'hook-a'));
  const payloads = events.map((e) => JSON.parse(e.body).payload);
  assert.equal(payloads[0].status, 'sent');
  assert.deepEqual(
    payloads.at(-1),
    { payload_type: 'transaction', ...canceled },
    'the cancel is written with its event',
  );
});

test('on restart the config rewrites name and signer while the database keeps paused and notification_id', async (t) => {
  const first = await buildWithRelayers(undefined as never);
  const dataDir = first.dataDir;
  t.after(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));
  try {
    await first.request('PATCH', '/api/v1/relayers/evm', { body: { notification_id: 'hook-a', paused: true } });
    await first.request('POST', txPath('evm-legacy'), {
      body: evmBody({ max_fee_per_gas: undefined, max_priority_fee_per_gas: undefined, gas_price: 1 }),
    });
  } finally {
    await first.app.close();
  }
  const relayers = testConfig
    .relayers!.map((r) =>
      r.id === 'evm' ? { ...r, name: 'Renamed' } : r.id === 'evm-legacy' ? { ...r, initial_nonce: 10 } : r,
    )
    .filter((r) => r.id !== 'solana');
  const again = await buildWithRelayers(t, { dataDir, config: { relayers } });
  const evm = (await again.request('GET', '/api/v1/relayers/evm')).body.data;
  assert.equal(evm.name, 'Renamed');
  assert.equal(evm.paused, true);
  assert.equal(evm.notification_id, 'hook-a');
  const legacy = await again.request('POST', txPath('evm-legacy'), {
    body: { value: 1, to: evmBody().to, gas_price: 1 },
  });
  assert.equal(legacy.body.data.nonce, 10, 'a higher initial_nonce moves the nonce forward');
  const gone = await again.request('GET', '/api/v1/relayers/solana');
  assert.equal(gone.status, 404, 'a relayer removed from the config is hidden');
});
