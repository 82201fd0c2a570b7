// Where a reference deployment's config is, what its relative paths mean, and its variables: each refusal is one
// sentence naming what is wrong and where we looked; each variable we read differently or not at all is a notice.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { SUPPORTED_SIGNER_TYPES } from '../../src/config/signer-types.ts';
import { makeKeystore } from '../support/keystore.ts';

const API_KEY = 'k'.repeat(32);
const root = mkdtempSync(path.join(tmpdir(), 'relaybox-refenv-'));
after(() => rmSync(root, { recursive: true, force: true }));

const signer = {
  id: 'local-signer',
  type: 'local',
  config: { path: 'config/keys/local-signer.json', passphrase: { type: 'plain', value: 'pw' } },
};
const relayer = {
  id: 'sepolia-example',
  name: 'Sepolia',
  network: 'sepolia',
  network_type: 'evm',
  signer_id: 'local-signer',
};
const sepolia = {
  type: 'evm',
  network: 'sepolia',
  chain_id: 11155111,
  required_confirmations: 1,
  symbol: 'ETH',
  average_blocktime_ms: 12000,
  rpc_urls: ['http://127.0.0.1:9'],
};

/** `<app>/config/config.json` holding `config`, with the keystore and (unless told) the networks directory. */
function app(name: string, config: object, options: { networks?: boolean; keystore?: boolean } = {}): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'config', 'keys'), { recursive: true });
  writeFileSync(path.join(dir, 'config', 'config.json'), JSON.stringify(config));
  if (options.keystore !== false)
    writeFileSync(
      path.join(dir, 'config', 'keys', 'local-signer.json'),
      JSON.stringify(makeKeystore(Buffer.alloc(32, 1), 'pw')),
    );
  if (options.networks !== false) {
    mkdirSync(path.join(dir, 'config', 'networks'));
    writeFileSync(path.join(dir, 'config', 'networks', 'evm.json'), JSON.stringify({ networks: [sepolia] }));
  }
  return dir;
}

const load = (env: Record<string, string>) => loadConfig({ API_KEY, ...env });

test("CONFIG_DIR: the reference's relative paths resolve from the folder holding config/, whatever the working directory", () => {
  const dir = app('reference', { relayers: [relayer], signers: [signer], networks: './config/networks' });
  const config = load({ CONFIG_DIR: path.join(dir, 'config') });
  assert.equal(config.configPath, path.join(dir, 'config', 'config.json'));
  assert.equal(
    (config.file.signers[0]!.config as { path: string }).path,
    path.join(dir, 'config', 'keys', 'local-signer.json'),
  );
  assert.deepEqual(
    config.file.networks.map((n) => n.network),
    ['sepolia'],
  );
  assert.equal(config.dataDir, path.join(dir, 'data'), "data beside the reference's config folder");
  assert.equal(config.pluginsDir, path.join(dir, 'plugins'), 'its /app/plugins');
  // CONFIG_PATH to a file in a config/ folder means the same; CONFIG_FILE_NAME picks another file name.
  assert.equal(
    (load({ CONFIG_PATH: path.join(dir, 'config', 'config.json') }).file.signers[0]!.config as { path: string }).path,
    path.join(dir, 'config', 'keys', 'local-signer.json'),
  );
  writeFileSync(path.join(dir, 'config', 'other.json'), JSON.stringify({ relayers: [], signers: [] }));
  assert.equal(
    load({ CONFIG_DIR: path.join(dir, 'config'), CONFIG_FILE_NAME: 'other.json' }).configPath,
    path.join(dir, 'config', 'other.json'),
  );
  assert.throws(
    () => load({ CONFIG_DIR: path.join(dir, 'config'), CONFIG_PATH: path.join(root, 'x.json') }),
    /CONFIG_PATH names .* but CONFIG_DIR\/CONFIG_FILE_NAME names .*: set only one of them/,
  );
});

test('ours still works: paths relative to the config file', () => {
  const dir = path.join(root, 'ours');
  mkdirSync(path.join(dir, 'keys'), { recursive: true });
  writeFileSync(path.join(dir, 'keys', 'k.json'), JSON.stringify(makeKeystore(Buffer.alloc(32, 2), 'pw')));
  writeFileSync(
    path.join(dir, 'relaybox.json'),
    JSON.stringify({
      relayers: [relayer],
      signers: [{ ...signer, config: { ...signer.config, path: 'keys/k.json' } }],
      networks: [sepolia],
    }),
  );
  const config = load({ CONFIG_PATH: path.join(dir, 'relaybox.json') });
  assert.equal((config.file.signers[0]!.config as { path: string }).path, path.join(dir, 'keys', 'k.json'));
  assert.equal(config.dataDir, path.resolve('data'), 'not a reference layout: the working directory');
});

test('a keystore or networks directory not found is refused naming every place looked', () => {
  const dir = app(
    'missing',
    { relayers: [relayer], signers: [signer], networks: './config/nets' },
    { keystore: false },
  );
  assert.throws(
    () => load({ CONFIG_DIR: path.join(dir, 'config') }),
    (err: Error) => {
      assert.match(err.message, /networks: directory '\.\/config\/nets' not found \(looked in /);
      assert.ok(
        err.message.includes(path.join(dir, 'config', 'nets')) &&
          err.message.includes(path.join(dir, 'config', 'config', 'nets')),
        err.message,
      );
      return true;
    },
  );
  writeFileSync(
    path.join(dir, 'config', 'config.json'),
    JSON.stringify({ relayers: [relayer], signers: [signer], networks: [sepolia] }),
  );
  assert.throws(
    () => load({ CONFIG_DIR: path.join(dir, 'config') }),
    new RegExp(
      `keystore 'config/keys/local-signer.json' not found \\(looked in .*${path.join(dir, 'config', 'keys', 'local-signer.json').replaceAll('/', '\\/')}`,
    ),
  );
});

test("networks left out: the reference's default directory, or a refusal that says where it looked", () => {
  const dir = app('no-networks', { relayers: [relayer], signers: [signer] });
  assert.deepEqual(
    load({ CONFIG_DIR: path.join(dir, 'config') }).file.networks.map((n) => n.network),
    ['sepolia'],
  );
  const bare = app('no-networks-dir', { relayers: [relayer], signers: [signer] }, { networks: false });
  assert.throws(
    () => load({ CONFIG_DIR: path.join(bare, 'config') }),
    /networks: not given, and no default networks directory was found \(looked in .*config\/networks\)/,
  );
  const empty = app('no-relayers', { relayers: [], signers: [] }, { networks: false, keystore: false });
  assert.deepEqual(load({ CONFIG_DIR: path.join(empty, 'config') }).file.networks, [], 'no relayer needs one');
});

test('a signer type we do not have is refused at start in one sentence, naming the types we support', () => {
  // One of the reference's types we do not have yet (the list grows: src/config/signer-types.ts).
  const type =
    ['cdp', 'turnkey', 'azure_key_vault', 'google_cloud_kms', 'aws_kms'].find(
      (t) => !(SUPPORTED_SIGNER_TYPES as readonly string[]).includes(t),
    ) ?? 'no_such_type';
  const dir = app(
    `kms-${type}`,
    {
      relayers: [],
      signers: [{ id: 'remote-signer', type, config: { region: 'us-east-1', key_id: 'k' } }],
      networks: './config/networks',
    },
    { keystore: false },
  );
  assert.throws(() => load({ CONFIG_DIR: path.join(dir, 'config') }), {
    message: new RegExp(
      `signer 'remote-signer': type '${type}' is not supported \\(supported: ${SUPPORTED_SIGNER_TYPES.join(', ')}\\)`,
    ),
  });
});

test('several instances sharing state: PostgreSQL with DATABASE_URL, otherwise a one-sentence refusal', () => {
  const dir = app('shared', { relayers: [relayer], signers: [signer], networks: './config/networks' });
  const env = { CONFIG_DIR: path.join(dir, 'config') };
  assert.throws(
    () => load({ ...env, REPOSITORY_STORAGE_TYPE: 'redis' }),
    /^Error: REPOSITORY_STORAGE_TYPE=redis says several instances share state, which Relaybox keeps only in PostgreSQL: set DATABASE_URL/,
  );
  assert.throws(
    () => load({ ...env, DISTRIBUTED_MODE: 'true' }),
    /DISTRIBUTED_MODE=true says several instances share state/,
  );
  const shared = load({ ...env, DISTRIBUTED_MODE: '1', DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' });
  assert.ok(
    shared.notices.some((n) => n.variable === 'DISTRIBUTED_MODE' && /shared through PostgreSQL/.test(n.message)),
  );
  assert.ok(
    load({ ...env, REPOSITORY_STORAGE_TYPE: 'in_memory' }).notices.some(
      (n) => n.variable === 'REPOSITORY_STORAGE_TYPE' && /SQLite/.test(n.message),
    ),
  );
});

test("the reference's variables: read with its meaning, or named in a notice with what we do instead", () => {
  const dir = app('vars', { relayers: [relayer], signers: [signer], networks: './config/networks' });
  const config = load({
    CONFIG_DIR: path.join(dir, 'config'),
    APP_PORT: '9123',
    RATE_LIMIT_REQUESTS_PER_SECOND: '7',
    RATE_LIMIT_BURST_SIZE: '21',
    METRICS_ENABLED: 'TRUE',
    LOG_LEVEL: 'WARN',
    LOG_MODE: 'file',
    LOG_DATA_DIR: 'logs1/',
    LOG_MAX_SIZE: '2048',
    RPC_TIMEOUT_MS: '5000',
    PROVIDER_MAX_RETRIES: '3',
    PROVIDER_RETRY_BASE_DELAY_MS: '100',
    PROVIDER_PAUSE_DURATION_SECS: '60',
    PROVIDER_MAX_FAILOVERS: '3',
    RESET_STORAGE_ON_START: 'true',
    TRANSACTION_EXPIRATION_HOURS: '4',
    QUEUE_BACKEND: 'sqs',
    REDIS_KEY_PREFIX: 'oz',
    REDIS_CONNECTION_TIMEOUT_MS: '1500',
  });
  assert.equal(config.port, 9123);
  assert.deepEqual(config.rateLimit, { rps: 7, burst: 21 });
  assert.equal(config.metricsPort, 8081, "METRICS_ENABLED=true: the reference's default port");
  assert.equal(config.logLevel, 'warn');
  assert.deepEqual(config.logOutput, { mode: 'file', dir: path.join(dir, 'logs1'), maxBytes: 2048 });
  assert.deepEqual(config.rpc, { timeoutMs: 5000, retryCount: 3, retryDelayMs: 100, cooldownMs: 60_000 });
  assert.deepEqual(config.redis, { keyPrefix: 'oz:', connectTimeoutMs: 1500 });
  const named = config.notices.map((n) => n.variable);
  for (const v of [
    'PROVIDER_MAX_RETRIES',
    'PROVIDER_PAUSE_DURATION_SECS',
    'PROVIDER_MAX_FAILOVERS',
    'RESET_STORAGE_ON_START',
    'TRANSACTION_EXPIRATION_HOURS',
    'QUEUE_BACKEND',
    'HOST',
  ])
    assert.ok(named.includes(v), `${v} in ${named.join(', ')}`);
  assert.equal(
    load({ CONFIG_DIR: path.join(dir, 'config'), METRICS_ENABLED: 'false', METRICS_PORT: '9999' }).metricsPort,
    undefined,
    'METRICS_ENABLED=false: no listener, as the reference',
  );
  assert.equal(
    load({ CONFIG_DIR: path.join(dir, 'config'), PORT: '1', APP_PORT: '2' }).port,
    1,
    'PORT wins over APP_PORT',
  );
  assert.throws(
    () => load({ CONFIG_DIR: path.join(dir, 'config'), LOG_MODE: 'syslog' }),
    /LOG_MODE must be 'stdout' or 'file', got 'syslog'/,
  );
  assert.throws(() => load({ CONFIG_DIR: path.join(dir, 'config'), LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of/);
  assert.throws(
    () => load({ CONFIG_DIR: path.join(dir, 'config'), QUEUE_BACKEND: 'kafka' }),
    /QUEUE_BACKEND must be redis, sqs, pubsub or rabbitmq, got 'kafka'/,
  );
  assert.throws(
    () =>
      load({
        CONFIG_DIR: path.join(dir, 'config'),
        REDIS_URL: 'rediss://127.0.0.1:1',
        SSL_CERT_FILE: path.join(dir, 'config', 'config.json'),
      }),
    /SSL_CERT_FILE: .* holds no PEM certificate/,
  );
});
