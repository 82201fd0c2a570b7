// Contract: what the management routes store (relayers created and deleted through the API, signers, network and
// plugin overrides, API keys).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './index.ts';
import type { SignerRow } from '../../../src/domain/signers/ports.ts';
import type { ApiKeyRow } from '../../../src/domain/api-keys/ports.ts';
import { relayerSeed, txRecord } from './fixtures.ts';

const signerRow = (id: string, extra: Partial<SignerRow> = {}): SignerRow => ({
  id,
  type: 'local',
  config: {},
  secret: null,
  source: 'config',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

// k2 carries its own rate limit: the column round-trips as JSON, a key without one reads back null.
const apiKey = (id: string, hash: string, createdAt: string): ApiKeyRow => ({
  id,
  name: `key ${id}`,
  key_hash: hash,
  permissions: ['relayer:all:read'],
  allowed_origins: ['*'],
  created_at: createdAt,
  rate_limit: id === 'k2' ? { requests_per_second: 2, burst_size: 5 } : null,
});

export function managementContract(factory: StoreFactory): void {
  test('relayers: API relayers are created once, untouched by seeding, changed field by field, and deleted for good', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('cfg')]);
    assert.equal(
      await repos.relayers.create(
        relayerSeed('api', {
          policies: { min_balance: 5 },
          custom_rpc_urls: [{ url: 'https://x.example', weight: 100 }],
        }),
      ),
      true,
    );
    assert.equal(await repos.relayers.create(relayerSeed('api')), false, 'the id is taken');
    assert.equal(await repos.relayers.create(relayerSeed('cfg')), false, 'a config relayer holds its id');
    const api = (await repos.relayers.get('api'))!;
    assert.equal(api.source, 'api');
    assert.deepEqual(api.policies, { min_balance: 5 });
    assert.deepEqual(api.custom_rpc_urls, [{ url: 'https://x.example', weight: 100 }]);
    assert.equal(api.system_disabled, false);
    assert.equal(api.disabled_reason, null);

    await repos.relayers.seed([relayerSeed('cfg')]);
    assert.ok(await repos.relayers.get('api'), 'seeding never hides an API relayer');
    await repos.relayers.update('api', { name: 'renamed', policies: null, custom_rpc_urls: null });
    const changed = (await repos.relayers.get('api'))!;
    assert.deepEqual([changed.name, changed.policies, changed.custom_rpc_urls], ['renamed', null, null]);
    await repos.relayers.setSystemDisabled('api', { type: 'SignerUnavailable', details: 'gone' });
    assert.deepEqual((await repos.relayers.get('api'))!.disabled_reason, {
      type: 'SignerUnavailable',
      details: 'gone',
    });
    assert.equal((await repos.relayers.get('api'))!.system_disabled, true);
    await repos.relayers.setSystemDisabled('api', null);
    assert.equal((await repos.relayers.get('api'))!.system_disabled, false);

    assert.equal(await repos.relayers.remove('api'), true);
    assert.equal(await repos.relayers.get('api'), undefined);
    assert.equal(await repos.relayers.remove('api'), false);
    assert.equal(await repos.relayers.count(), 1);
    assert.equal(await repos.relayers.create(relayerSeed('api')), true, 'a deleted id can be used again');
  });

  test('relayers: the store wins over an unchanged config entry; an edited entry rewrites; a deleted config relayer stays deleted until edited', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([relayerSeed('r1')]);
    await repos.relayers.update('r1', { name: 'from the API' });
    await repos.relayers.seed([relayerSeed('r1')]);
    assert.equal((await repos.relayers.get('r1'))!.name, 'from the API', 'same entry: the store wins');
    await repos.relayers.seed([relayerSeed('r1', { name: 'edited in the file' })]);
    assert.equal((await repos.relayers.get('r1'))!.name, 'edited in the file', 'an edited entry is applied');
    await repos.relayers.remove('r1');
    await repos.relayers.seed([relayerSeed('r1', { name: 'edited in the file' })]);
    assert.equal(await repos.relayers.get('r1'), undefined, 'deleted stays deleted');
    await repos.relayers.seed([relayerSeed('r1', { name: 'edited again' })]);
    assert.equal((await repos.relayers.get('r1'))!.name, 'edited again');
  });

  test('relayers: usingSigner lists the visible relayers of a signer', async (t) => {
    const { repos } = await factory(t);
    await repos.relayers.seed([
      relayerSeed('a', { signer_id: 's1' }),
      relayerSeed('b', { signer_id: 's1' }),
      relayerSeed('c', { signer_id: 's2' }),
    ]);
    await repos.transactions.insert(txRecord('b', 't1', 1), 1, null);
    assert.deepEqual(await repos.relayers.usingSigner('s1'), ['a', 'b']);
    await repos.relayers.remove('a');
    assert.deepEqual(await repos.relayers.usingSigner('s1'), ['b']);
    assert.deepEqual(await repos.relayers.usingSigner('none'), []);
  });

  test('signers: seeded once, inserted, listed by id, removed for good (seeding does not bring a deleted one back)', async (t) => {
    const { repos } = await factory(t);
    await repos.signers.seed([signerRow('b'), signerRow('a')]);
    await repos.signers.seed([signerRow('a', { type: 'changed' })]);
    assert.equal((await repos.signers.get('a'))!.type, 'local', 'seeding never overwrites');
    assert.equal(
      await repos.signers.insert(signerRow('c', { source: 'api', secret: 'sealed', config: { k: 1 } })),
      true,
    );
    assert.equal(await repos.signers.insert(signerRow('c', { source: 'api' })), false);
    assert.deepEqual(
      await repos.signers.get('c'),
      signerRow('c', { source: 'api', secret: 'sealed', config: { k: 1 } }),
    );
    assert.deepEqual(
      (await repos.signers.list(2, 1)).map((s) => s.id),
      ['b', 'c'],
    );
    assert.equal(await repos.signers.count(), 3);
    assert.equal(await repos.signers.remove('a', '2026-01-02T00:00:00.000Z'), true);
    assert.equal(await repos.signers.remove('a', '2026-01-02T00:00:00.000Z'), false);
    await repos.signers.seed([signerRow('a')]);
    assert.equal(await repos.signers.get('a'), undefined);
    assert.deepEqual(await repos.signers.deletedIds(), ['a']);
    assert.equal(await repos.signers.insert(signerRow('a', { source: 'api' })), true, 'a deleted id can be used again');
    assert.deepEqual(await repos.signers.deletedIds(), []);
  });

  test('network and plugin overrides: put replaces, all lists', async (t) => {
    const { repos } = await factory(t);
    assert.deepEqual(await repos.networkOverrides.all(), []);
    await repos.networkOverrides.put({
      network_type: 'evm',
      name: 'sepolia',
      rpc_urls: [{ url: 'https://a.example', weight: 100 }],
      updated_at: 't1',
    });
    await repos.networkOverrides.put({
      network_type: 'evm',
      name: 'sepolia',
      rpc_urls: [{ url: 'https://b.example', weight: 5 }],
      updated_at: 't2',
    });
    await repos.networkOverrides.put({
      network_type: 'solana',
      name: 'sepolia',
      rpc_urls: [{ url: 'https://c.example', weight: 1 }],
      updated_at: 't3',
    });
    assert.deepEqual(await repos.networkOverrides.all(), [
      { network_type: 'evm', name: 'sepolia', rpc_urls: [{ url: 'https://b.example', weight: 5 }], updated_at: 't2' },
      {
        network_type: 'solana',
        name: 'sepolia',
        rpc_urls: [{ url: 'https://c.example', weight: 1 }],
        updated_at: 't3',
      },
    ]);
    await repos.pluginOverrides.put({ plugin_id: 'p', settings: { timeout: 5 }, updated_at: 't1' });
    await repos.pluginOverrides.put({ plugin_id: 'p', settings: { timeout: 9, config: null }, updated_at: 't2' });
    assert.deepEqual(await repos.pluginOverrides.all(), [
      { plugin_id: 'p', settings: { timeout: 9, config: null }, updated_at: 't2' },
    ]);
  });

  test('API keys: inserted once per id and hash, found by hash, listed newest first, removed', async (t) => {
    const { repos } = await factory(t);
    assert.equal(await repos.apiKeys.insert(apiKey('k1', 'h1', '2026-01-01T00:00:00.000Z')), true);
    assert.equal(await repos.apiKeys.insert(apiKey('k2', 'h2', '2026-01-02T00:00:00.000Z')), true);
    assert.equal(await repos.apiKeys.insert(apiKey('k1', 'h3', '2026-01-03T00:00:00.000Z')), false, 'id taken');
    assert.equal(await repos.apiKeys.insert(apiKey('k3', 'h1', '2026-01-03T00:00:00.000Z')), false, 'hash taken');
    assert.deepEqual(await repos.apiKeys.findByHash('h2'), apiKey('k2', 'h2', '2026-01-02T00:00:00.000Z'));
    assert.equal(await repos.apiKeys.findByHash('nope'), undefined);
    assert.deepEqual(
      (await repos.apiKeys.list(10, 0)).map((k) => k.id),
      ['k2', 'k1'],
    );
    assert.equal(await repos.apiKeys.count(), 2);
    assert.equal(await repos.apiKeys.remove('k2'), true);
    assert.equal(await repos.apiKeys.remove('k2'), false);
    assert.equal(await repos.apiKeys.get('k2'), undefined);
    assert.deepEqual((await repos.apiKeys.get('k1'))!.permissions, ['relayer:all:read']);
  });
}
