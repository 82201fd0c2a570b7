// The reference's plugins read their settings from the service's environment (STELLAR_NETWORK, PLUGIN_ADMIN_SECRET,
// …). A plugin receives only the variables its own code names (`process.env.NAME`, `process.env['NAME']`) and those
// its config entry lists (`service_env`), and never a credential of the service (docs/plugins.md).
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

/** Plugin settings the reference's examples put in the service's environment: a plugin that names them gets them. */
const VISIBLE = {
  STELLAR_NETWORK: 'testnet',
  FUND_RELAYER_ID: 'stellar',
  PLUGIN_ADMIN_SECRET: 'channels-admin-from-env',
  LOCK_TTL_SECONDS: '30',
};

/** The host's other credentials, under names no denylist knows (issue 39, break 6): no plugin gets them unasked. */
const HOST_CREDENTIALS: Record<string, string> = {
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB',
  NPM_TOKEN: 'npm_0123456789abcdefghijklmnopqrstuvwxyz',
  ALCHEMY_API_KEY: 'alchemy-0123456789abcdefghij',
  OPENAI_API_KEY: 'sk-proj-0123456789abcdefghijklmnop',
  INFURA_PROJECT_SECRET: 'infura-secret-0123456789abcdef',
  SECRET_KEY_BASE: 'secret-key-base-0123456789abcdef0123456789',
  JWT_SIGNING_SECRET: 'jwt-signing-secret-0123456789abcdef',
  SENTRY_DSN: 'https://0123456789abcdef@o12345.ingest.sentry.io/67890',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/0123456789abcdefXYZ',
  HTTP_PROXY: 'http://proxyuser:proxy-password-0123@proxy.internal:3128',
};

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
/** Names what it reads, literally: the reference's settings, and every credential of the service (withheld all the same). */
const NAMED = `export async function handler({ params }) {
  return {
    named: { network: process.env.STELLAR_NETWORK, ttl: process.env['LOCK_TTL_SECONDS'], proxy: process.env.HTTP_PROXY ?? null },
    credentials: { ${Object.keys(WITHHELD)
      .map((n) => `${n}: process.env.${n}`)
      .join(', ')} },
    dynamic: process.env[params.name] ?? null,
    keys: Object.keys(process.env).sort(),
  };
}`;

function configWithSecrets(t: TestContext, plugins: unknown[]) {
  return {
    ...testConfig,
    signers: [
      ...(testConfig.signers ?? []),
      {
        id: 'keystore-signer',
        type: 'local',
        config: { path: keystoreFile(t), passphrase: { type: 'env', value: 'MY_SIGNER_PASS' } },
      },
    ],
    notifications: [
      {
        id: 'hook-env',
        type: 'webhook',
        url: 'http://127.0.0.1:9/hook',
        signing_key: { type: 'env', value: 'NOTIFY_KEY_VAR' },
      },
    ],
    plugins,
  } as never;
}
const SECRET_ENV = {
  STORAGE_ENCRYPTION_KEY: STORAGE_KEY,
  STORAGE_ENCRYPTION_KEY_PREVIOUS: PREVIOUS_KEY,
  MY_SIGNER_PASS: KEYSTORE_PASS,
  NOTIFY_KEY_VAR: NOTIFY_KEY,
};

test("a plugin that returns process.env gets none of the service's environment: not the host's other credentials, not even its settings", async (t) => {
  serviceEnv(t, { ...VISIBLE, ...WITHHELD, ...HOST_CREDENTIALS });
  const s = await build(t, {
    runtime: true,
    plugins: { 'show.ts': SHOW_ENV },
    env: SECRET_ENV,
    config: configWithSecrets(t, []),
  });
  const shown = await s.request('POST', '/api/v1/plugins/show/call', { body: {} });
  assert.equal(shown.status, 200, shown.text);
  assert.deepEqual(shown.body.data, {}, 'its code names no variable');
  for (const value of [...Object.values(HOST_CREDENTIALS), ...Object.values(WITHHELD)])
    assert.ok(!shown.text.includes(value), `a credential reached the plugin: ${value}`);
  const line = s.logs.find((l) => l.plugin === 'show' && typeof l.msg === 'string' && l.msg.includes('receives'));
  assert.ok(line, 'the start log says what the plugin receives');
  assert.deepEqual(line.env, []);
});

test('a plugin receives the variables its code names, never a credential of the service; a computed name gets nothing unlisted', async (t) => {
  serviceEnv(t, { ...VISIBLE, ...WITHHELD, ...HOST_CREDENTIALS });
  const s = await build(t, {
    runtime: true,
    plugins: { 'named.ts': NAMED },
    env: SECRET_ENV,
    config: configWithSecrets(t, []),
  });
  const call = (name: string) => s.request('POST', '/api/v1/plugins/named/call', { body: { params: { name } } });
  const shown = await call('GITHUB_TOKEN');
  assert.equal(shown.status, 200, shown.text);
  assert.deepEqual(
    shown.body.data.named,
    { network: 'testnet', ttl: '30', proxy: null },
    'a proxy URL with a password is withheld even when named',
  );
  assert.deepEqual(shown.body.data.keys, ['LOCK_TTL_SECONDS', 'STELLAR_NETWORK'], 'only what its code names');
  for (const name of Object.keys(WITHHELD))
    assert.ok(
      shown.body.data.credentials[name] == null,
      `${name}: named by the code, still withheld (a credential of the service)`,
    );
  for (const value of Object.values(WITHHELD))
    assert.ok(!shown.text.includes(value), `a credential's value reached the plugin: ${value}`);
  for (const name of [...Object.keys(HOST_CREDENTIALS), 'FUND_RELAYER_ID', 'PATH', 'HOME']) {
    assert.equal((await call(name)).body.data.dynamic, null, `process.env[name] for ${name}: nothing unlisted`);
  }
  // The start log names what it receives, never a value.
  const line = s.logs.find((l) => l.plugin === 'named' && typeof l.msg === 'string' && l.msg.includes('receives'));
  assert.deepEqual(line?.env, ['LOCK_TTL_SECONDS', 'STELLAR_NETWORK']);
  assert.equal(line?.level, 30, 'at info level');
  for (const value of [VISIBLE.PLUGIN_ADMIN_SECRET, ...Object.values(HOST_CREDENTIALS)])
    assert.ok(!s.rawLogs().includes(value), `a value in the log: ${value}`);
});

test("the operator lists more of the service's variables for one plugin (service_env), never a credential; its own env goes over them", async (t) => {
  serviceEnv(t, { ...VISIBLE, ...WITHHELD, ...HOST_CREDENTIALS });
  const s = await build(t, {
    runtime: true,
    plugins: { 'own.ts': SHOW_ENV, 'other.ts': SHOW_ENV },
    env: SECRET_ENV,
    config: configWithSecrets(t, [
      {
        id: 'own',
        service_env: [
          'FUND_RELAYER_ID',
          'STELLAR_NETWORK',
          'API_KEY',
          'AWS_SECRET_ACCESS_KEY',
          'MY_SIGNER_PASS',
          'ALIAS_OF_THE_API_KEY',
          'NOT_SET',
        ],
        env: { STELLAR_NETWORK: 'mainnet', EXTRA: 'x' },
      },
    ]),
  });
  const own = await s.request('POST', '/api/v1/plugins/own/call', { body: {} });
  assert.equal(own.status, 200, own.text);
  assert.deepEqual(
    own.body.data,
    { FUND_RELAYER_ID: 'stellar', STELLAR_NETWORK: 'mainnet', EXTRA: 'x' },
    'the listed names, less the credentials; its own env over them',
  );
  assert.deepEqual(
    (await s.request('POST', '/api/v1/plugins/other/call', { body: {} })).body.data,
    {},
    'another plugin gets nothing of it',
  );
  // The listing shows the names only: its own env, and the service's variables it asked for.
  const listed = (await s.request('GET', '/api/v1/plugins/own')).body.data;
  assert.deepEqual(listed.env_keys, ['STELLAR_NETWORK', 'EXTRA']);
  assert.deepEqual(listed.service_env, [
    'FUND_RELAYER_ID',
    'STELLAR_NETWORK',
    'API_KEY',
    'AWS_SECRET_ACCESS_KEY',
    'MY_SIGNER_PASS',
    'ALIAS_OF_THE_API_KEY',
    'NOT_SET',
  ]);
  const line = s.logs.find((l) => l.plugin === 'own' && typeof l.msg === 'string' && l.msg.includes('receives'));
  assert.deepEqual(
    [line?.env, line?.own_env],
    [
      ['FUND_RELAYER_ID', 'STELLAR_NETWORK'],
      ['STELLAR_NETWORK', 'EXTRA'],
    ],
  );
});

test('service_env is validated by the config schema: variable names only', async (t) => {
  assert.ok(
    await build(t, {
      config: { ...testConfig, plugins: [{ id: 'x', service_env: ['STELLAR_NETWORK', 'lower_case_1'] }] } as never,
    }),
    'names are accepted',
  );
  for (const service_env of [['not a name'], 'STELLAR_NETWORK', [1], ['A', 'A']]) {
    await assert.rejects(
      build(t, { config: { ...testConfig, plugins: [{ id: 'x', service_env }] } as never }),
      /service_env/,
      JSON.stringify(service_env),
    );
  }
});

test("the channels plugin runs on the reference example's environment, with no env in its config entry", async (t) => {
  serviceEnv(t, { ...VISIBLE, API_KEY });
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-plugin-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'channels.ts'), `export { handler } from '@openzeppelin/relayer-plugin-channels';\n`);
  const s = await build(t, {
    runtime: true,
    env: { PLUGINS_DIR: dir },
    config: { ...testConfig, plugins: [{ id: 'channels', path: 'channels.ts', timeout: 30 }] } as never,
  });
  // The runtime bundles the 2 MB plugin before it serves: wait for readiness as a client would.
  await eventually(async () => (await s.request('GET', '/api/v1/ready', { auth: false })).status === 200, 600, 100);
  const manage = (management: Record<string, unknown>) =>
    s.request('POST', '/api/v1/plugins/channels/call', { body: { params: { management } } });
  const denied = await manage({ action: 'listChannelAccounts', adminSecret: 'wrong' });
  assert.equal(denied.status, 401, denied.text);
  const set = await manage({
    action: 'setChannelAccounts',
    adminSecret: VISIBLE.PLUGIN_ADMIN_SECRET,
    relayerIds: ['channel-1'],
  });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(
    (await manage({ action: 'listChannelAccounts', adminSecret: VISIBLE.PLUGIN_ADMIN_SECRET })).body.data,
    { relayerIds: ['channel-1'] },
  );
});
