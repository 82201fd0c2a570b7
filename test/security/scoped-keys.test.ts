// The attacks of issue 23, each as an attacker holding a low-privilege API key: every one must be refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type TestServer } from '../helper.ts';
import { buildWithRelayers } from '../transactions/fixtures.ts';

async function mint(s: TestServer, permissions: string[], as?: string) {
  const res = await request(s.url, 'POST', '/api/v1/api-keys', {
    body: { name: `key ${permissions.join(' ')}`, permissions },
    ...(as ? { auth: `Bearer ${as}` } : {}),
  });
  return res;
}

async function keyWith(s: TestServer, permissions: string[]): Promise<{ id: string; value: string }> {
  const res = await mint(s, permissions);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

test('break 1: a key cannot mint a key with more rights than its own', async (t) => {
  const s = await buildWithRelayers(t);
  const victim = await keyWith(s, ['relayer:evm:read']);
  // Manage rights on one key are not the right to create keys (a route that names no id needs a wildcard).
  const oneKey = await keyWith(s, [`api_key:${victim.id}:manage`]);
  const escalated = await mint(s, ['*:*:*'], oneKey.value);
  assert.equal(escalated.status, 403, escalated.text);
  assert.equal(escalated.body.message, 'Forbidden');

  // The right to create keys hands on only rights the creator holds.
  const minter = await keyWith(s, ['api_key:all:manage', 'relayer:evm:execute']);
  for (const wanted of [
    ['*:*:*'],
    ['relayer:all:read'],
    ['relayer:evm:manage'],
    ['signer:evm-signer:execute'],
    ['relayer:evm:read', 'plugin:all:execute'],
    ['unknown-form'],
  ]) {
    const res = await mint(s, wanted, minter.value);
    assert.equal(res.status, 403, `${wanted}: ${res.text}`);
    assert.match(res.body.error, /may not grant permissions it does not hold/);
  }
  const within = await mint(s, ['relayer:evm:read', 'api_key:all:read'], minter.value);
  assert.equal(within.status, 201, within.text);
  // The admin key stays all-powerful.
  assert.equal((await mint(s, ['*:*:*'])).status, 201);
  // A stored key's own rate limit caps what it mints.
  const slow = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'slow', permissions: ['api_key:all:manage'], rate_limit: { requests_per_second: 2, burst_size: 4 } },
  });
  const faster = await request(s.url, 'POST', '/api/v1/api-keys', {
    auth: `Bearer ${slow.body.data.value}`,
    body: { name: 'f', permissions: ['api_key:all:read'], rate_limit: { requests_per_second: 50, burst_size: 50 } },
  });
  assert.equal(faster.status, 403, faster.text);
  const inherits = await request(s.url, 'POST', '/api/v1/api-keys', {
    auth: `Bearer ${slow.body.data.value}`,
    body: { name: 'i', permissions: ['api_key:all:read'] },
  });
  assert.deepEqual(inherits.body.data.rate_limit, { requests_per_second: 2, burst_size: 4 });
});

test('break 2: list routes answer only what a scoped key may read (no other relayer, no other webhook URL)', async (t) => {
  const s = await buildWithRelayers(t);
  const secretUrl = 'https://hooks.example.com/other?token=s3cr3t-t0ken';
  assert.equal(
    (await s.request('POST', '/api/v1/notifications', { body: { id: 'operator-hook', url: secretUrl } })).status,
    201,
  );
  const scoped = await keyWith(s, ['relayer:evm:execute', 'notification:hook-a:read']);
  const as = (p: string) => request(s.url, 'GET', p, { auth: `Bearer ${scoped.value}` });

  const relayers = await as('/api/v1/relayers?per_page=100');
  assert.equal(relayers.status, 200);
  assert.deepEqual(
    relayers.body.data.map((r: { id: string }) => r.id),
    ['evm'],
  );
  assert.equal(relayers.body.pagination.total_items, 1);
  const notifications = await as('/api/v1/notifications?per_page=100');
  assert.deepEqual(
    notifications.body.data.map((n: { id: string }) => n.id),
    ['hook-a'],
  );
  assert.ok(!notifications.text.includes('s3cr3t-t0ken'), "another notification's URL is not shown");
  // Paging applies to the filtered list.
  const empty = await as('/api/v1/relayers?page=2&per_page=1');
  assert.deepEqual([empty.body.data, empty.body.pagination.total_items], [[], 1]);
  // No read right in an area at all: 403, not an empty list.
  assert.equal((await as('/api/v1/signers')).status, 403);
  // A wildcard key sees everything.
  const all = await keyWith(s, ['relayer:all:read']);
  const every = await request(s.url, 'GET', '/api/v1/relayers?per_page=100', { auth: `Bearer ${all.value}` });
  assert.ok(every.body.data.length >= 5);
});

test("break 3: a key cannot borrow the operator's signer (relayer create, sign routes, signing RPC)", async (t) => {
  const s = await buildWithRelayers(t);
  const attacker = await keyWith(s, ['relayer:all:manage']);
  const as = (method: string, p: string, body: unknown, key = attacker.value) =>
    request(s.url, method, p, { auth: `Bearer ${key}`, body });
  const relayer = {
    id: 'borrowed',
    name: 'borrowed',
    network: 'legacy-chain',
    network_type: 'evm',
    paused: false,
    signer_id: 'evm-signer-env',
  };
  const created = await as('POST', '/api/v1/relayers', relayer);
  assert.equal(created.status, 403, created.text);
  assert.match(created.body.error, /no permission to execute on signer 'evm-signer-env'/);
  assert.equal((await s.request('GET', '/api/v1/relayers/borrowed')).status, 404, 'nothing was created');

  // Signing through an existing relayer needs the signer's right too, not only the relayer's.
  const relayerOnly = await keyWith(s, ['relayer:evm:execute', 'relayer:solana:execute']);
  const typed = { domain_separator: `0x${'ab'.repeat(32)}`, hash_struct_message: `0x${'cd'.repeat(32)}` };
  for (const [p, body] of [
    ['/api/v1/relayers/evm/sign', { message: 'hello' }],
    ['/api/v1/relayers/evm/sign-typed-data', typed],
    [
      '/api/v1/relayers/solana/rpc',
      { jsonrpc: '2.0', id: 1, method: 'signTransaction', params: { transaction: 'AQ==' } },
    ],
  ] as const) {
    const res = await as('POST', p, body, relayerOnly.value);
    assert.equal(res.status, 403, `${p}: ${res.text}`);
  }
  // A read-only RPC call signs nothing: the relayer's right is enough.
  const read = await as(
    'POST',
    '/api/v1/relayers/evm/rpc',
    { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
    relayerOnly.value,
  );
  assert.notEqual(read.status, 403);

  // With the signer's right both work.
  const owner = await keyWith(s, ['relayer:all:manage', 'signer:evm-signer-env:execute']);
  const mine = await as('POST', '/api/v1/relayers', relayer, owner.value);
  assert.equal(mine.status, 201, mine.text);
  const signed = await as('POST', '/api/v1/relayers/borrowed/sign', { message: 'hello' }, owner.value);
  assert.equal(signed.status, 200, signed.text);
  assert.match(signed.body.data.sig, /^[0-9a-f]{130}$/);
});

test('unknown permission strings are stored as the reference does and grant nothing, never an error at auth time', async (t) => {
  const s = await buildWithRelayers(t);
  const odd = await keyWith(s, [
    'relayer',
    'relayer:evm',
    'teleport:all:read',
    'relayer:evm:fly',
    ':::',
    'relayer::read',
  ]);
  for (const p of ['/api/v1/relayers', '/api/v1/relayers/evm', '/api/v1/metrics']) {
    const res = await request(s.url, 'GET', p, { auth: `Bearer ${odd.value}` });
    assert.equal(res.status, 403, `${p}: ${res.text}`);
  }
  // Ids with a colon (network ids) are scoped like any other.
  const network = await keyWith(s, ['network:evm:sepolia:read']);
  assert.equal(
    (await request(s.url, 'GET', '/api/v1/networks/evm:sepolia', { auth: `Bearer ${network.value}` })).status,
    200,
  );
  assert.equal(
    (await request(s.url, 'GET', '/api/v1/networks/solana:solana-devnet', { auth: `Bearer ${network.value}` })).status,
    403,
  );
});
