import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, EVM_ADDRESS, SOLANA_ADDRESS, STELLAR_ADDRESS } from '../transactions/fixtures.ts';
import { shared } from '../helper.ts';

/** The tests below only read, or check what a request changed against counts taken just before: they share one app. */
const app = shared(() => buildWithRelayers(undefined));

test('relayers are listed by id with their network type and signer address', async () => {
  const s = await app();
  const res = await s.request('GET', '/api/v1/relayers');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.pagination, { current_page: 1, per_page: 10, total_items: 6 });
  assert.deepEqual(
    res.body.data.map((r: { id: string }) => r.id),
    ['evm', 'evm-env', 'evm-legacy', 'evm-paused', 'solana', 'stellar'],
  );
  const byId = Object.fromEntries(res.body.data.map((r: { id: string }) => [r.id, r]));
  assert.deepEqual(byId.evm, {
    id: 'evm',
    name: 'EVM relayer',
    network: 'sepolia',
    network_type: 'evm',
    paused: false,
    signer_id: 'evm-signer',
    address: EVM_ADDRESS,
    notification_id: null,
    policies: null,
    custom_rpc_urls: null,
    system_disabled: false,
    disabled_reason: null,
  });
  assert.equal(byId.solana.address, SOLANA_ADDRESS);
  assert.equal(byId.solana.network_type, 'solana');
  assert.equal(byId.stellar.address, STELLAR_ADDRESS);
  assert.equal(byId['evm-paused'].paused, true);
  assert.ok(!JSON.stringify(res.body).includes('private'), 'no key material in the answer');
});

test('relayer listing paginates and validates like transactions', async () => {
  const s = await app();
  const page = await s.request('GET', '/api/v1/relayers/?page=2&per_page=4');
  assert.deepEqual(
    page.body.data.map((r: { id: string }) => r.id),
    ['solana', 'stellar'],
  );
  assert.deepEqual(page.body.pagination, { current_page: 2, per_page: 4, total_items: 6 });
  const zero = await s.request('GET', '/api/v1/relayers?per_page=0');
  assert.deepEqual(zero.body.data, []);
  assert.equal(zero.body.pagination.total_items, 6);
  for (const q of ['page=0', 'per_page=101', 'page=1&page=2']) {
    const bad = await s.request('GET', `/api/v1/relayers?${q}`);
    assert.equal(bad.status, 400, q);
  }
});

test('one relayer is read by id; an unknown id answers 404 naming it', async () => {
  const s = await app();
  const res = await s.request('GET', '/api/v1/relayers/stellar');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.network, 'stellar-testnet');
  const missing = await s.request('GET', '/api/v1/relayers/ghost');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'Relayer with ID ghost not found');
});

test('an unsupported method on a relayer path answers 405 in the envelope', async () => {
  const s = await app();
  const res = await s.request('POST', '/api/v1/relayers/evm', { body: {} });
  assert.equal(res.status, 405);
  assert.equal(res.body.success, false);
});
