// The reference's published plugins (@openzeppelin/relayer-plugin-channels, -launchtube, -x402-facilitator, installed
// as devDependencies), loaded unchanged in the sandbox the way the reference's examples load them
// (`export { handler } from '<package>'`), each running a real flow against our relayers.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { build, type TestServer } from '../helper.ts';
import { eventually } from '../fixtures/plugin-fixtures.ts';
import { STELLAR_ADDRESS, stellarBody, testConfig, txPath } from '../transactions/fixtures.ts';

const PACKAGES = {
  channels: '@openzeppelin/relayer-plugin-channels',
  launchtube: '@openzeppelin/relayer-plugin-launchtube',
  x402: '@openzeppelin/relayer-plugin-x402-facilitator',
};

/** A plugins directory holding the reference's one-line wrappers, with the project's node_modules next to them. */
function pluginsDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-published-'));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  for (const [id, pkg] of Object.entries(PACKAGES))
    writeFileSync(path.join(dir, `${id}.ts`), `export { handler } from '${pkg}';\n`);
  return dir;
}

const STELLAR_ENV = { STELLAR_NETWORK: 'testnet', FUND_RELAYER_ID: 'stellar' };

/**
 * One app for the file, with the three plugins: bundling them (2 MB each) is most of a start. Each test works in its
 * own plugin's KV keys or on a transaction of its own, so none sees another's writes.
 */
let shared: Promise<TestServer> | undefined;
let sharedDir: string | undefined;
after(async () => {
  if (shared) await (await shared).close();
  if (sharedDir) rmSync(sharedDir, { recursive: true, force: true });
});

/** The shared app, once the runtime has bundled the plugins and it is ready, as a client would wait for it. */
function start(): Promise<TestServer> {
  shared ??= (async () => {
    sharedDir = pluginsDir();
    const s = await boot(sharedDir);
    await eventually(async () => (await s.request('GET', '/api/v1/ready', { auth: false })).status === 200, 600, 100);
    return s;
  })();
  return shared;
}

function boot(dir: string) {
  return build(undefined, {
    runtime: true,
    env: { PLUGINS_DIR: dir },
    config: {
      ...testConfig,
      plugins: [
        {
          id: 'x402',
          raw_response: true,
          allow_get_invocation: true,
          timeout: 30,
          config: {
            networks: [
              {
                network: 'stellar:testnet',
                type: 'stellar',
                relayer_id: 'stellar',
                assets: ['CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA'],
              },
            ],
          },
        },
        { id: 'channels', timeout: 30, env: { ...STELLAR_ENV, PLUGIN_ADMIN_SECRET: 'channels-admin' } },
        {
          id: 'launchtube',
          timeout: 30,
          env: {
            ...STELLAR_ENV,
            SOROBAN_RPC_URL: 'http://127.0.0.1:9/soroban',
            LAUNCHTUBE_ADMIN_SECRET: 'launchtube-admin',
          },
        },
      ],
    } as never,
  });
}

test('the three published plugins load unchanged in the sandbox', async () => {
  const s = await start();
  for (const id of Object.keys(PACKAGES)) {
    const p = (await s.request('GET', `/api/v1/plugins/${id}`)).body.data;
    assert.equal(p?.state, 'ready', `${id}: ${JSON.stringify(p?.error)}`);
  }
});

test('x402 facilitator: /supported answers its kinds and our Stellar relayer as the signer (GET and POST)', async () => {
  const s = await start();
  for (const method of ['GET', 'POST'] as const) {
    const res = await s.request(method, '/api/v1/plugins/x402/call/supported', method === 'POST' ? { body: {} } : {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.kinds, [
      { x402Version: 2, scheme: 'exact', network: 'stellar:testnet', extra: { areFeesSponsored: true } },
    ]);
    assert.deepEqual(res.body.signers, { 'stellar:testnet': [STELLAR_ADDRESS] });
  }
  const unknown = await s.request('POST', '/api/v1/plugins/x402/call/nope', { body: {} });
  assert.equal(unknown.status, 404, unknown.text);
});

test('channels: the management API keeps its channel accounts in our KV, behind its admin secret', async () => {
  const s = await start();
  const manage = (management: Record<string, unknown>) =>
    s.request('POST', '/api/v1/plugins/channels/call', { body: { params: { management } } });
  const denied = await manage({ action: 'listChannelAccounts', adminSecret: 'wrong' });
  assert.equal(denied.status, 401, denied.text);
  assert.equal(denied.body.data.code, 'UNAUTHORIZED');
  const set = await manage({
    action: 'setChannelAccounts',
    adminSecret: 'channels-admin',
    relayerIds: ['channel-1', 'channel-2', 'channel-1'],
  });
  assert.equal(set.status, 200, set.text);
  const listed = await manage({ action: 'listChannelAccounts', adminSecret: 'channels-admin' });
  assert.deepEqual(listed.body.data, { relayerIds: ['channel-1', 'channel-2'] });
});

test('launchtube: the management API keeps its sequence accounts in our KV, behind its admin secret', async () => {
  const s = await start();
  const manage = (management: Record<string, unknown>) =>
    s.request('POST', '/api/v1/plugins/launchtube/call', { body: { params: { management } } });
  const denied = await manage({ action: 'listSequenceAccounts', adminSecret: 'nope' });
  assert.equal(denied.status, 401, denied.text);
  const set = await manage({ action: 'setSequenceAccounts', adminSecret: 'launchtube-admin', relayerIds: ['seq-1'] });
  assert.equal(set.status, 200, set.text);
  const listed = await manage({ action: 'listSequenceAccounts', adminSecret: 'launchtube-admin' });
  assert.deepEqual(listed.body.data, { relayerIds: ['seq-1'] });
});

test("channels: a getTransaction request reads the fund relayer's transaction through our relayer API", async () => {
  const s = await start();
  const sent = await s.request('POST', txPath('stellar'), { body: stellarBody() });
  assert.equal(sent.status, 200, sent.text);
  const res = await s.request('POST', '/api/v1/plugins/channels/call', {
    body: { params: { getTransaction: { transactionId: sent.body.data.id } } },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, {
    transactionId: sent.body.data.id,
    status: sent.body.data.status,
    hash: sent.body.data.hash ?? null,
  });
  const missing = await s.request('POST', '/api/v1/plugins/channels/call', {
    body: { params: { getTransaction: { transactionId: 'no-such-tx' } } },
  });
  assert.equal(missing.status, 404, missing.text);
});
