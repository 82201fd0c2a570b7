// The reference's plugins read their settings from the service's environment (STELLAR_NETWORK, PLUGIN_ADMIN_SECRET,
// …): a plugin's process.env is that environment, minus every credential of the service (docs/plugins.md).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { API_KEY, build } from '../helper.ts';
import { eventually } from '../fixtures/plugin-fixtures.ts';
import { makeKeystore } from '../support/keystore.ts';
import { EVM_KEY_2, testConfig } from '../transactions/fixtures.ts';

const STORAGE_KEY = 'storage-encryption-key-0123456789abcdef';
const PREVIOUS_KEY = 'previous-storage-key-0123456789abcdef0';
const KEYSTORE_PASS = 'keystore passphrase named by the config';
const NOTIFY_KEY = 'notification-signing-key-0123456789abcdef';

/** Credentials the service holds, by name: none may reach a plugin. */
const WITHHELD: Record<string, string> = {
  API_KEY,
  STORAGE_ENCRYPTION_KEY: STORAGE_KEY,
  STORAGE_ENCRYPTION_KEY_PREVIOUS: PREVIOUS_KEY,
  DATABASE_URL: 'postgres://relayer:db-password-123@db.internal:5432/relayer',
  REDIS_URL: 'redis://:redis-password-123@redis.internal:6379',
  REDIS_READER_URL: 'redis://:redis-password-123@reader.internal:6379',
  WEBHOOK_SIGNING_KEY: 'webhook-signing-key-0123456789abcdef01',
  KEYSTORE_PASSPHRASE: 'the reference example passphrase',
  KEYSTORE_PASSPHRASE_FUND: 'fund passphrase',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789',
  GOOGLE_APPLICATION_CREDENTIALS: '/secrets/gcp.json',
  AZURE_CLIENT_SECRET: 'azure-secret-0123456789',
  VAULT_TOKEN: 'vault-token-0123456789',
  PGPASSWORD: 'pg-password',
  // Named by the config as secrets: a keystore passphrase, a signer's private_key_env, a notification's signing key.
  MY_SIGNER_PASS: KEYSTORE_PASS,
  RELAYBOX_TEST_EVM_KEY: EVM_KEY_2,
  NOTIFY_KEY_VAR: NOTIFY_KEY,
  // A secret under a name no rule knows: withheld for its value.
  ALIAS_OF_THE_API_KEY: API_KEY,
  ADMIN_URL_WITH_KEY: `https://admin.example/?key=${STORAGE_KEY}`,
};

/** Plugin settings the reference's examples put in the service's environment: every plugin sees them. */
const VISIBLE = { STELLAR_NETWORK: 'testnet', FUND_RELAYER_ID: 'stellar', PLUGIN_ADMIN_SECRET: 'channels-admin-from-env', LOCK_TTL_SECONDS: '30' };

/** The service's environment for one test (this process's, as main.ts runs), put back afterwards. */
function serviceEnv(t: TestContext, vars: Record<string, string>): void {
  const before = new Map(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  t.after(() => {
    for (const [k, v] of before) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

function keystoreFile(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-plugin-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'signer.json');
  writeFileSync(file, JSON.stringify(makeKeystore(Buffer.from('11'.repeat(32), 'hex'), KEYSTORE_PASS)));
  return file;
}

const SHOW_ENV = `export async function handler() { return { ...process.env }; }`;

test("a plugin sees the service's environment without any credential of the service", async (t) => {
  serviceEnv(t, { ...VISIBLE, ...WITHHELD });
  const s = await build(t, {
    plugins: { 'show.ts': SHOW_ENV, 'own.ts': SHOW_ENV },
    env: { STORAGE_ENCRYPTION_KEY: STORAGE_KEY, STORAGE_ENCRYPTION_KEY_PREVIOUS: PREVIOUS_KEY, MY_SIGNER_PASS: KEYSTORE_PASS, NOTIFY_KEY_VAR: NOTIFY_KEY },
    config: {
      ...testConfig,
      signers: [...(testConfig.signers ?? []), { id: 'keystore-signer', type: 'local', config: { path: keystoreFile(t), passphrase: { type: 'env', value: 'MY_SIGNER_PASS' } } }],
      notifications: [{ id: 'hook-env', type: 'webhook', url: 'http://127.0.0.1:9/hook', signing_key: { type: 'env', value: 'NOTIFY_KEY_VAR' } }],
      // The plugin's configured env goes over the service's.
      plugins: [{ id: 'own', env: { STELLAR_NETWORK: 'mainnet', EXTRA: 'x' } }],
    } as never,
  });
  const shown = await s.request('POST', '/api/v1/plugins/show/call', { body: {} });
  assert.equal(shown.status, 200, shown.text);
  for (const [name, value] of Object.entries(VISIBLE)) assert.equal(shown.body.data[name], value, name);
  for (const name of Object.keys(WITHHELD)) assert.equal(shown.body.data[name], undefined, `${name} reached the plugin`);
  for (const value of Object.values(WITHHELD)) assert.ok(!shown.text.includes(value), `a credential's value reached the plugin: ${value}`);
  const own = await s.request('POST', '/api/v1/plugins/own/call', { body: {} });
  assert.equal(own.body.data.STELLAR_NETWORK, 'mainnet');
  assert.equal(own.body.data.EXTRA, 'x');
  assert.equal(own.body.data.PLUGIN_ADMIN_SECRET, VISIBLE.PLUGIN_ADMIN_SECRET);
  // The listing names the configured env only: the service's variables are not the plugin's settings.
  assert.deepEqual((await s.request('GET', '/api/v1/plugins/own')).body.data.env_keys, ['STELLAR_NETWORK', 'EXTRA']);
});

test("the channels plugin runs on the reference example's environment, with no env in its config entry", async (t) => {
  serviceEnv(t, { ...VISIBLE, API_KEY });
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-plugin-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'channels.ts'), `export { handler } from '@openzeppelin/relayer-plugin-channels';\n`);
  const s = await build(t, { runtime: true, env: { PLUGINS_DIR: dir }, config: { ...testConfig, plugins: [{ id: 'channels', path: 'channels.ts', timeout: 30 }] } as never });
  // The runtime bundles the 2 MB plugin before it serves: wait for readiness as a client would.
  await eventually(async () => (await s.request('GET', '/api/v1/ready', { auth: false })).status === 200, 600, 100);
  const manage = (management: Record<string, unknown>) => s.request('POST', '/api/v1/plugins/channels/call', { body: { params: { management } } });
  const denied = await manage({ action: 'listChannelAccounts', adminSecret: 'wrong' });
  assert.equal(denied.status, 401, denied.text);
  const set = await manage({ action: 'setChannelAccounts', adminSecret: VISIBLE.PLUGIN_ADMIN_SECRET, relayerIds: ['channel-1'] });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual((await manage({ action: 'listChannelAccounts', adminSecret: VISIBLE.PLUGIN_ADMIN_SECRET })).body.data, { relayerIds: ['channel-1'] });
});
