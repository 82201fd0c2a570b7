// Signers, networks and API keys managed through the API; keys and passphrases never in answers or logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, request } from '../helper.ts';
import { buildWithRelayers, testConfig } from '../transactions/fixtures.ts';

const KEY = '0x' + '5d'.repeat(32);

test('signers: create (the key never shown again), list, get, update refused, delete refused while used', async (t) => {
  const s = await buildWithRelayers(t);
  const created = await s.request('POST', '/api/v1/signers', {
    body: { id: 'api-signer', type: 'plain', config: { key: KEY } },
  });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.data, { id: 'api-signer', type: 'local', config: {} });
  const list = await s.request('GET', '/api/v1/signers?per_page=100');
  assert.ok(list.body.data.some((x: { id: string }) => x.id === 'evm-signer'));
  assert.equal(list.body.pagination.total_items, 5);
  assert.equal((await s.request('GET', '/api/v1/signers/api-signer')).body.data.id, 'api-signer');
  const missing = await s.request('GET', '/api/v1/signers/ghost');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'Signer not found');

  const update = await s.request('PATCH', '/api/v1/signers/api-signer', { body: {} });
  assert.equal(update.status, 400);
  assert.match(update.body.error, /Signer updates are not allowed/);
  const used = await s.request('DELETE', '/api/v1/signers/evm-signer');
  assert.equal(used.status, 400);
  assert.match(
    used.body.error,
    /Cannot delete signer 'evm-signer' because it is being used by 3 relayer\(s\): evm, evm-legacy, evm-paused/,
  );
  const deleted = await s.request('DELETE', '/api/v1/signers/api-signer');
  assert.deepEqual([deleted.status, deleted.body.data], [200, 'Signer deleted successfully']);
  assert.equal((await s.request('GET', '/api/v1/signers/api-signer')).status, 404);

  const bad: Array<[unknown, RegExp]> = [
    [{ type: 'aws_kms', config: { key_id: 'x' } }, /missing required field 'config.region'/],
    [{ type: 'plain', config: { key: 'not-hex' } }, /'config.key' must be a 32-byte key in hex/],
    [{ type: 'plain', config: {} }, /missing required field 'config.key'/],
    [{ type: 'plain', config: { key: KEY, extra: 1 } }, /unknown field 'config.extra'/],
    [{ type: 'ledger', config: {} }, /'type' must be one of/],
  ];
  for (const [body, reason] of bad) {
    const res = await s.request('POST', '/api/v1/signers', { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  const dup = await s.request('POST', '/api/v1/signers', {
    body: { id: 'evm-signer', type: 'plain', config: { key: KEY } },
  });
  assert.deepEqual([dup.status, dup.body.message], [409, 'Signer with this ID already exists']);
  for (const secret of [KEY, KEY.slice(2)]) assert.ok(!s.rawLogs().includes(secret), 'the key is not in the logs');
});

test('networks: list and get in the reference shape; PATCH rpc_urls takes effect at once and survives a restart', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-networks-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const s = await build(undefined, { dataDir, config: testConfig });
  t.after(() => s.close());
  const list = await s.request('GET', '/api/v1/networks');
  assert.deepEqual(
    list.body.data.map((n: { id: string }) => n.id),
    ['evm:legacy-chain', 'evm:sepolia', 'solana:solana-devnet', 'stellar:stellar-testnet'],
  );
  const stellar = (await s.request('GET', '/api/v1/networks/stellar:stellar-testnet')).body.data;
  assert.equal(stellar.name, 'stellar-testnet');
  assert.equal(stellar.network_type, 'stellar');
  assert.equal(stellar.passphrase, 'Test SDF Network ; September 2015');
  const unknown = await s.request('GET', '/api/v1/networks/evm:nowhere');
  assert.deepEqual([unknown.status, unknown.body.message], [404, "Network with ID 'evm:nowhere' not found"]);

  const patched = await s.request('PATCH', '/api/v1/networks/solana:solana-devnet', {
    body: { rpc_urls: ['https://solana.example.com/key-123', { url: 'https://backup.example.com', weight: 10 }] },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(patched.body.data.rpc_urls, [
    { url: 'https://solana.example.com/***', weight: 100 },
    { url: 'https://backup.example.com', weight: 10 },
  ]);
  const urls = (h: Record<string, Array<{ url: string }>>) => h['solana-devnet']!.map((u) => u.url);
  assert.deepEqual(
    urls(s.app.chains.health() as never),
    ['https://solana.example.com/***', 'https://backup.example.com'],
    'the chain adapter was rebuilt',
  );
  for (const body of [{}, { rpc_urls: [] }, { rpc_urls: ['ftp://x'] }, { chain_id: 1 }]) {
    const bad = await s.request('PATCH', '/api/v1/networks/solana:solana-devnet', { body });
    assert.equal(bad.status, 400, JSON.stringify(body));
  }
  await s.close();

  const again = await build(t, { dataDir, config: testConfig });
  assert.deepEqual(
    urls(again.app.chains.health() as never),
    ['https://solana.example.com/***', 'https://backup.example.com'],
    'the store wins over the config',
  );
  assert.ok(again.logs.some((l) => l.network === 'solana:solana-devnet' && String(l.msg).startsWith('config drift')));
});

test('API keys: the secret is shown once and stored hashed; permissions limit what a key may do; API_KEY stays the admin key', async (t) => {
  const s = await buildWithRelayers(t);
  const created = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'reader', permissions: ['relayer:all:read', 'plugin:echo:execute'] },
  });
  assert.equal(created.status, 201, created.text);
  const { id, value } = created.body.data;
  assert.match(value, /^rbk_/);
  const stored = s.app.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Record<string, string>;
  assert.ok(!JSON.stringify(stored).includes(value), 'only the hash is stored');
  const listed = await s.request('GET', '/api/v1/api-keys');
  assert.equal(listed.body.data[0].id, id);
  assert.equal(listed.body.data[0].value, undefined, 'never shown again');
  assert.deepEqual((await s.request('GET', `/api/v1/api-keys/${id}/permissions`)).body.data, [
    'relayer:all:read',
    'plugin:echo:execute',
  ]);

  const as = (method: string, p: string, body?: unknown) =>
    request(s.url, method, p, { auth: `Bearer ${value}`, body });
  assert.equal((await as('GET', '/api/v1/relayers')).status, 200);
  const send = await as('POST', '/api/v1/relayers/evm/transactions', {
    value: 1,
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    gas_price: 1,
  });
  assert.deepEqual([send.status, send.body.message], [403, 'Forbidden']);
  assert.match(send.body.error, /API key 'reader' has no permission to execute on relayer 'evm'/);
  assert.equal((await as('GET', '/api/v1/signers')).status, 403);
  assert.equal(
    (await as('POST', '/api/v1/api-keys', { name: 'escalate', permissions: ['*:*:*'] })).status,
    403,
    'a key cannot mint keys without api_key permission',
  );

  // The reference stores any permission string (issue 23): one Relaybox does not understand is kept and grants nothing.
  const odd = await s.request('POST', '/api/v1/api-keys', { body: { name: 'x', permissions: ['everything'] } });
  assert.equal(odd.status, 201, odd.text);
  assert.equal(
    (await request(s.url, 'GET', '/api/v1/relayers', { auth: `Bearer ${odd.body.data.value}` })).status,
    403,
  );
  const bad = await s.request('POST', '/api/v1/api-keys', { body: { name: 'x', permissions: [''] } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /'permissions.0'/);
  assert.equal((await s.request('DELETE', `/api/v1/api-keys/${id}`)).body.data, 'API key deleted successfully');
  assert.equal((await as('GET', '/api/v1/relayers')).status, 401, 'a deleted key stops working');
  assert.equal((await s.request('DELETE', `/api/v1/api-keys/${id}`)).status, 404);
  assert.ok(!s.rawLogs().includes(value), 'the secret is not in the logs');
});
