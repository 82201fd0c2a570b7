// The reference's own client, @openzeppelin/relayer-sdk, driving Relaybox: every management method, and the transaction
// and plugin calls Relaybox already served. Each answer is checked in the reference's shape. (The chain routes' methods
// are tested by their own work: see docs/compatibility.md.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Configuration,
  NetworksApi,
  NotificationsApi,
  PluginsApi,
  RelayersApi,
  SignersApi,
} from '@openzeppelin/relayer-sdk';
import { API_KEY } from '../helper.ts';
import { buildWithRelayers, evmBody, IN_FLIGHT, TO } from '../transactions/fixtures.ts';

const KEY = '0x' + '6e'.repeat(32);

async function client(t: Parameters<typeof buildWithRelayers>[0]) {
  const echo = readFileSync(new URL('../../plugins/echo.ts', import.meta.url), 'utf8');
  const s = await buildWithRelayers(t, { plugins: { 'echo.ts': echo } });
  const config = new Configuration({ basePath: s.url, accessToken: API_KEY });
  return {
    s,
    relayers: new RelayersApi(config),
    signers: new SignersApi(config),
    networks: new NetworksApi(config),
    notifications: new NotificationsApi(config),
    plugins: new PluginsApi(config),
  };
}

/** The status of a request the client refused (axios throws on a non-2xx answer). */
async function failure(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await call;
  } catch (err) {
    const res = (err as { response?: { status: number; data: unknown } }).response;
    if (res) return res as { status: number; data: any };
    throw err;
  }
  assert.fail('the call succeeded');
}

test('relayers and signers through the client: list, get, create, update, delete', async (t) => {
  const { relayers, signers } = await client(t);
  const list = (await relayers.listRelayers(1, 100)).data;
  assert.equal(list.success, true);
  assert.ok(list.data!.some((r) => r.id === 'evm' && r.signer_id === 'evm-signer' && r.system_disabled === false));
  assert.equal(list.pagination?.total_items, 6);
  assert.equal((await relayers.getRelayer('evm')).data.data!.network_type, 'evm');

  const signer = (await signers.createSigner({ id: 'sdk-signer', type: 'plain', config: { key: KEY } } as never)).data
    .data!;
  assert.deepEqual(signer, { id: 'sdk-signer', type: 'local', config: {} });
  assert.ok((await signers.listSigners(1, 100)).data.data!.some((x) => x.id === 'sdk-signer'));
  assert.equal((await signers.getSigner('sdk-signer')).data.data!.id, 'sdk-signer');
  const refused = await failure(signers.updateSigner('sdk-signer', {}));
  assert.equal(refused.status, 400);
  assert.match(refused.data.error, /Signer updates are not allowed/);

  const created = (
    await relayers.createRelayer({
      id: 'sdk-relayer',
      name: 'From the client',
      network: 'sepolia',
      network_type: 'evm',
      paused: false,
      signer_id: 'sdk-signer',
      policies: { min_balance: 0 },
    } as never)
  ).data.data!;
  assert.equal(created.id, 'sdk-relayer');
  assert.deepEqual(created.policies, { min_balance: 0 });
  const updated = (
    await relayers.updateRelayer('sdk-relayer', {
      name: 'Renamed',
      paused: true,
      custom_rpc_urls: [{ url: 'https://rpc.example.com/key', weight: 50 }],
    })
  ).data.data!;
  assert.deepEqual(
    [updated.name, updated.paused, updated.custom_rpc_urls],
    ['Renamed', true, [{ url: 'https://rpc.example.com/***', weight: 50 }]],
  );
  assert.equal((await relayers.deleteRelayer('sdk-relayer')).data.data, 'Relayer deleted successfully');
  assert.equal((await failure(relayers.getRelayer('sdk-relayer'))).status, 404);
  assert.equal((await signers.deleteSigner('sdk-signer')).data.data, 'Signer deleted successfully');
});

test('networks through the client: list, get, update RPC URLs', async (t) => {
  const { networks } = await client(t);
  const list = (await networks.listNetworks(1, 100)).data;
  assert.ok(list.data!.some((n) => n.id === 'evm:sepolia' && n.chain_id === 11155111));
  const stellar = (await networks.getNetwork('stellar:stellar-testnet')).data.data!;
  assert.equal(stellar.passphrase, 'Test SDF Network ; September 2015');
  const updated = (
    await networks.updateNetwork('solana:solana-devnet', {
      rpc_urls: [{ url: 'https://solana.example.com', weight: 100 }],
    } as never)
  ).data.data!;
  assert.deepEqual(updated.rpc_urls, [{ url: 'https://solana.example.com', weight: 100 }]);
  assert.equal(
    (await failure(networks.getNetwork('evm:nowhere'))).data.message,
    "Network with ID 'evm:nowhere' not found",
  );
});

test('notifications through the client: create, list, get, update, delete', async (t) => {
  const { notifications } = await client(t);
  const created = (
    await notifications.createNotification({
      id: 'sdk-hook',
      type: 'webhook',
      url: 'https://example.com/hook',
      signing_key: 'k'.repeat(32),
    } as never)
  ).data.data!;
  assert.equal(created.id, 'sdk-hook');
  assert.ok((await notifications.listNotifications(1, 100)).data.data!.some((n) => n.id === 'sdk-hook'));
  assert.equal((await notifications.getNotification('sdk-hook')).data.data!.url, 'https://example.com/hook');
  assert.equal(
    (await notifications.updateNotification('sdk-hook', { url: 'https://example.com/other' })).data.data!.url,
    'https://example.com/other',
  );
  assert.equal((await notifications.deleteNotification('sdk-hook')).data.data, 'Notification deleted successfully');
});

test('plugins through the client: list, get, update, call', async (t) => {
  const { plugins } = await client(t);
  const list = (await plugins.listPlugins(1, 10)).data;
  const echo = (list.data as unknown as Array<{ id: string; path: string; timeout: number }>).find(
    (p) => p.id === 'echo',
  )!;
  assert.deepEqual([echo.path, typeof echo.timeout], ['echo.ts', 'number'], 'flat, as the PluginModel');
  assert.equal((await plugins.getPlugin('echo')).data.data!.id, 'echo');
  const updated = (await plugins.updatePlugin('echo', { emit_logs: true, timeout: 20 })).data.data!;
  assert.deepEqual([updated.emit_logs, updated.timeout], [true, 20]);
  const called = (await plugins.callPlugin('echo', { params: { hello: 'world' } })).data;
  assert.equal(called.success, true);
  assert.deepEqual((called.data as { params: unknown }).params, { hello: 'world' });
});

test('transactions through the client: send, get, list, replace, cancel', async (t) => {
  const { relayers } = await client(t);
  const sent = (await relayers.sendTransaction('evm', evmBody() as never)).data.data! as {
    id: string;
    status: string;
    to: string;
  };
  assert.ok(IN_FLIGHT.includes(sent.status as never), sent.status);
  assert.equal(sent.to, TO);
  assert.equal(((await relayers.getTransactionById('evm', sent.id)).data.data as { id: string }).id, sent.id);
  assert.ok(
    (await relayers.listTransactions('evm', 1, 10)).data.data!.some((x) => (x as { id: string }).id === sent.id),
  );
  const faster = evmBody({ max_fee_per_gas: undefined, max_priority_fee_per_gas: undefined, speed: 'fastest' });
  const replaced = (await relayers.replaceTransaction('evm', sent.id, faster as never)).data.data as { id: string };
  assert.equal(replaced.id, sent.id);
  // Canceled by a NOOP under its nonce (the devnet mines hourly here, so it stays in flight, marked).
  const canceled = (await relayers.cancelTransaction('evm', sent.id)).data.data as unknown as { is_canceled: boolean };
  assert.equal(canceled.is_canceled, true);
});

test('a wrong key answers the reference 401 body to the client', async (t) => {
  const { s } = await client(t);
  const stranger = new RelayersApi(new Configuration({ basePath: s.url, accessToken: 'not-the-key' }));
  const res = await failure(stranger.listRelayers());
  assert.deepEqual(
    [res.status, res.data],
    [401, { success: false, code: 401, data: null, error: 'Unauthorized', message: 'Unauthorized' }],
  );
});
