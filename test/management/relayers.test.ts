// Relayers managed through the API: create, change, delete; stored, so they survive a restart, and the store wins over the config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { buildWithRelayers, EVM_ADDRESS, evmBody, testConfig, TO, txPath } from '../transactions/fixtures.ts';

// anvil's account #2 (funded on the devnet the app starts; publicly known, never holds real funds).
const NEW_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const createBody = (extra: Record<string, unknown> = {}) => ({
  id: 'made',
  name: 'Made through the API',
  network: 'sepolia',
  network_type: 'evm',
  paused: false,
  signer_id: 'api-signer',
  ...extra,
});

test('a relayer is created with a signer created through the API, answers in the reference shape and sends', async (t) => {
  const s = await buildWithRelayers(t);
  assert.equal(
    (
      await s.request('POST', '/api/v1/signers', {
        body: { id: 'api-signer', type: 'plain', config: { key: NEW_KEY } },
      })
    ).status,
    201,
  );
  const created = await s.request('POST', '/api/v1/relayers', {
    body: createBody({
      policies: { min_balance: 0, gas_price_cap: null },
      custom_rpc_urls: ['https://rpc.example.com/v2/secret-token'],
    }),
  });
  assert.equal(created.status, 201, created.text);
  const r = created.body.data;
  assert.equal(r.id, 'made');
  assert.equal(r.signer_id, 'api-signer');
  assert.match(r.address, /^0x[0-9a-fA-F]{40}$/);
  assert.notEqual(r.address, EVM_ADDRESS);
  assert.deepEqual(r.policies, { min_balance: 0 });
  assert.deepEqual(
    r.custom_rpc_urls,
    [{ url: 'https://rpc.example.com/***', weight: 100 }],
    'the path holding a provider key is masked',
  );
  assert.equal(r.system_disabled, false);
  assert.equal(r.disabled_reason, null);
  assert.equal((await s.request('GET', '/api/v1/relayers/made')).body.data.address, r.address);
  // The relayer reaches its network through its custom URLs: back to the network's before sending.
  await s.request('PATCH', '/api/v1/relayers/made', { body: { custom_rpc_urls: null } });
  const sent = await s.request('POST', txPath('made'), { body: evmBody() });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.from, r.address);

  const again = await s.request('POST', '/api/v1/relayers', { body: createBody() });
  assert.equal(again.status, 409);
  assert.equal(again.body.message, 'Relayer with this ID already exists');
  const sameSigner = await s.request('POST', '/api/v1/relayers', { body: createBody({ id: 'twin' }) });
  assert.equal(sameSigner.status, 400);
  assert.match(sameSigner.body.error, /signer 'api-signer' is already in use by relayer 'made' on network 'sepolia'/);
});

test('create refuses bad input with a precise reason', async (t) => {
  const s = await buildWithRelayers(t);
  const cases: Array<[unknown, number, RegExp]> = [
    [{ ...createBody(), name: undefined }, 400, /missing required field 'name'/],
    [createBody({ network_type: 'bitcoin' }), 400, /'network_type' must be one of: evm, solana, stellar/],
    [createBody({ network: 'nowhere' }), 400, /Network 'nowhere' not found for network type 'evm'/],
    [createBody({ signer_id: 'ghost' }), 404, /signer 'ghost' not found/],
    [
      createBody({ signer_id: 'evm-signer', policies: { allowed_programs: [] } }),
      400,
      /unknown field 'policies.allowed_programs'/,
    ],
    [createBody({ signer_id: 'evm-signer', notification_id: 'nope' }), 400, /notification 'nope' does not exist/],
    [createBody({ id: 'bad id' }), 400, /'id' must match pattern/],
    [createBody({ extra: 1 }), 400, /unknown field 'extra'/],
  ];
  for (const [body, status, reason] of cases) {
    const res = await s.request('POST', '/api/v1/relayers', { body });
    assert.equal(res.status, status, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  assert.equal((await s.request('POST', '/api/v1/relayers')).status, 400);
});

test('PATCH changes name, policies and custom RPC URLs; the policies are enforced on the next send', async (t) => {
  // The custom URL below is a dead loopback port: loopback URLs given through the API need the guard off (test/security/rpc-url-guard.test.ts).
  const s = await buildWithRelayers(t, { env: { RPC_BLOCK_PRIVATE_IPS: 'false' } });
  const patched = await s.request('PATCH', '/api/v1/relayers/evm', {
    body: { name: 'Renamed', policies: { whitelist_receivers: ['0x0000000000000000000000000000000000000001'] } },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.name, 'Renamed');
  assert.deepEqual(patched.body.data.policies, { whitelist_receivers: ['0x0000000000000000000000000000000000000001'] });
  const refused = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(refused.status, 400);
  assert.match(refused.body.error, new RegExp(`'to' ${TO} is not in the relayer's whitelist_receivers policy`));

  await s.request('PATCH', '/api/v1/relayers/evm', { body: { policies: { gas_price_cap: 1_000_000_000 } } });
  const capped = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(capped.status, 400);
  assert.match(capped.body.error, /above the relayer's gas_price_cap of 1000000000 wei/);
  const bySpeed = await s.request('POST', txPath('evm'), {
    body: evmBody({ max_fee_per_gas: undefined, max_priority_fee_per_gas: undefined, speed: 'fastest' }),
  });
  assert.equal(bySpeed.status, 200, bySpeed.text);
  assert.ok(BigInt(bySpeed.body.data.max_fee_per_gas) <= 1_000_000_000n, 'a speed price is lowered to the cap');

  // custom_rpc_urls: the relayer reaches its network through them (here a port nothing listens on).
  await s.request('PATCH', '/api/v1/relayers/evm', {
    body: { policies: null, custom_rpc_urls: ['http://127.0.0.1:9'] },
  });
  const unreachable = await s.request('POST', txPath('evm'), {
    body: evmBody({ max_fee_per_gas: undefined, max_priority_fee_per_gas: undefined, speed: 'fast' }),
  });
  assert.equal(unreachable.status, 503, unreachable.text);
  const cleared = await s.request('PATCH', '/api/v1/relayers/evm', { body: { policies: null, custom_rpc_urls: null } });
  assert.equal(cleared.body.data.policies, null);
  assert.equal((await s.request('POST', txPath('evm'), { body: evmBody() })).status, 200);
});

test('DELETE is refused while transactions are in flight, then removes the relayer for good', async (t) => {
  const s = await buildWithRelayers(t);
  await s.request('POST', txPath('evm-legacy'), {
    body: evmBody({ max_fee_per_gas: undefined, max_priority_fee_per_gas: undefined, gas_price: 1_000_000_000 }),
  });
  const busy = await s.request('DELETE', '/api/v1/relayers/evm-legacy');
  assert.equal(busy.status, 400);
  assert.match(busy.body.error, /Cannot delete relayer 'evm-legacy' because it has 1 transaction\(s\)/);
  const gone = await s.request('DELETE', '/api/v1/relayers/evm-paused');
  assert.equal(gone.status, 200);
  assert.equal(gone.body.data, 'Relayer deleted successfully');
  assert.equal((await s.request('GET', '/api/v1/relayers/evm-paused')).status, 404);
  assert.equal((await s.request('DELETE', '/api/v1/relayers/evm-paused')).status, 404);
});

test('changes through the API survive a restart; the store wins over the config file and the drift is logged', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-manage-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await build(undefined, { dataDir, config: testConfig });
  t.after(() => first.close());
  await first.request('POST', '/api/v1/signers', {
    body: { id: 'api-signer', type: 'plain', config: { key: NEW_KEY } },
  });
  assert.equal((await first.request('POST', '/api/v1/relayers', { body: createBody() })).status, 201);
  await first.request('PATCH', '/api/v1/relayers/evm', { body: { name: 'Renamed through the API' } });
  await first.request('DELETE', '/api/v1/relayers/evm-paused');
  await first.close();

  const second = await build(t, { dataDir, config: testConfig });
  const ids = (await second.request('GET', '/api/v1/relayers')).body.data.map((r: { id: string }) => r.id);
  assert.ok(ids.includes('made'), 'the API relayer is back');
  assert.ok(!ids.includes('evm-paused'), 'the deleted config relayer stays deleted');
  assert.equal((await second.request('GET', '/api/v1/relayers/evm')).body.data.name, 'Renamed through the API');
  assert.equal(
    (await second.request('POST', txPath('made'), { body: evmBody() })).status,
    200,
    'its signer key was kept (sealed) in the store',
  );
  const drift = second.logs.filter((l) => String(l.msg).startsWith('config drift'));
  assert.ok(
    drift.some((l) => l.relayerId === 'evm' && (l.fields as string[]).includes('name')),
    JSON.stringify(drift),
  );
  assert.ok(drift.some((l) => l.relayerId === 'evm-paused'));
});
