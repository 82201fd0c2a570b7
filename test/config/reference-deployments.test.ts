// The OpenZeppelin Relayer's 17 local-keystore deployments (its examples/), each written here in its shape (an
// /app-like folder: config/config.json, config/networks/, config/keys/, plugins/<dir>/, an .env), started as a real
// `node src/main.ts` from another working directory with CONFIG_DIR and the reference's variables. Each relayer is
// listed; an EVM relayer's transaction reaches `confirmed` on one shared anvil; each plugin is listed and callable.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-base';
import { request } from '../helper.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { openRedis } from '../../src/store/redis.ts';
import { startAnvil, type TestAnvil } from '../support/anvil.ts';
import { redisReachable } from '../support/redis.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { evmBody } from '../transactions/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import {
  evmAddress,
  exampleNotification,
  freePort,
  localSigner,
  sepoliaRelayer,
  startRelaybox,
  stellarRelayer,
  writeDeployment,
  type Deployment,
  type DeploymentSpec,
  type Running,
} from './reference-deployment.ts';

const REDIS = 'redis://127.0.0.1:6379';
const UNREACHABLE = 'http://127.0.0.1:9';
let anvil: TestAnvil;
let tlsRedis: { url: string; caFile: string; stop(): Promise<void> } | undefined;
const services = await Promise.all([redisReachable(), postgresReachable()]);
const shared = services.every(Boolean);

/** redis-server with TLS only, on a loopback port, its certificate signed by a CA made here with openssl. */
async function startTlsRedis(): Promise<typeof tlsRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-tls-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-subj',
    '/CN=relaybox-test-ca',
    '-days',
    '2',
  );
  ssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'redis.key',
    '-out',
    'redis.csr',
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(path.join(dir, 'ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'redis.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'ext',
    '-out',
    'redis.crt',
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      'redis.crt',
      '--tls-key-file',
      'redis.key',
      '--tls-ca-cert-file',
      'ca.crt',
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  await eventually(
    () => {
      try {
        execFileSync('redis-cli', ['--tls', '--cacert', 'ca.crt', '-h', '127.0.0.1', '-p', String(port), 'ping'], {
          cwd: dir,
          stdio: 'pipe',
        });
        return true;
      } catch {
        return false;
      }
    },
    { intervalMs: 100 },
  );
  return {
    url: `rediss://127.0.0.1:${port}`,
    caFile: path.join(dir, 'ca.crt'),
    async stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

before(async () => {
  anvil = await startAnvil({ chainId: 11155111 });
  // Debian's redis-server 7.0 is built with TLS (`--tls-port`); without it this shape is skipped, saying so.
  if (shared) tlsRedis = await startTlsRedis().catch(() => undefined);
});
after(async () => {
  await tlsRedis?.stop();
  await anvil?.stop();
});

const secret = () => randomBytes(24).toString('hex');
const sepolia = () => anvil.network('sepolia', { is_testnet: true, explorer_urls: ['https://sepolia.etherscan.io'] });
const stellarTestnet = {
  type: 'stellar',
  network: 'testnet',
  rpc_urls: [UNREACHABLE],
  passphrase: 'Test SDF Network ; September 2015',
  average_blocktime_ms: 5000,
  is_testnet: true,
};
/** The reference's examples' common .env: API key, webhook key, keystore passphrase (generated), Redis on loopback. */
const baseEnv = () => ({
  API_KEY: secret(),
  WEBHOOK_SIGNING_KEY: secret(),
  REDIS_URL: REDIS,
  RATE_LIMIT_REQUESTS_PER_SECOND: '200',
  RATE_LIMIT_BURST_SIZE: '400',
});

/** basic-example and its kin: one Sepolia relayer (and more), the keystore, the networks directory. */
function evmSpec(
  extra: {
    relayers?: object[];
    networks?: unknown;
    dotenv?: Record<string, string>;
    plugins?: object[];
    pluginFiles?: Record<string, string>;
    networkFiles?: Record<string, object[]>;
  } = {},
): DeploymentSpec {
  const config: Record<string, unknown> = {
    relayers: [sepoliaRelayer(), ...(extra.relayers ?? [])],
    notifications: [exampleNotification],
    signers: [localSigner('local-signer', 'local-signer', 'KEYSTORE_PASSPHRASE')],
    plugins: extra.plugins ?? [],
  };
  if (extra.networks !== null) config.networks = extra.networks ?? './config/networks';
  return {
    config,
    networkFiles:
      extra.networkFiles ??
      (extra.networks === undefined || extra.networks === null
        ? { evm: [sepolia()], stellar: [stellarTestnet] }
        : undefined),
    keystores: [{ file: 'local-signer', passphraseVar: 'KEYSTORE_PASSPHRASE' }],
    plugins: extra.pluginFiles,
    dotenv: { ...baseEnv(), ...extra.dotenv },
  };
}

/** The Stellar plugin examples: a fund relayer and channel (or sequence) relayers, one plugin. */
function stellarSpec(
  relayers: Array<[id: string, signer: string, file: string, passVar: string, policies: object]>,
  plugin: object,
  pluginFiles: Record<string, string>,
): DeploymentSpec {
  return {
    config: {
      relayers: relayers.map(([id, signer, , , policies]) => stellarRelayer(id, signer, policies)),
      notifications: [],
      signers: relayers.map(([, signer, file, passVar]) => localSigner(signer, file, passVar)),
      networks: './config/networks',
      plugins: [plugin],
    },
    networkFiles: { stellar: [stellarTestnet] },
    keystores: relayers.map(([, , file, passphraseVar]) => ({ file, passphraseVar })),
    plugins: pluginFiles,
    dotenv: { ...baseEnv(), STELLAR_NETWORK: 'testnet', PLUGIN_ADMIN_SECRET: secret() },
  };
}

const FUND = { concurrent_transactions: true, fee_payment_strategy: 'relayer' };
const CHANNEL = { fee_payment_strategy: 'relayer' };
const channelsPlugin = { id: 'channels', path: 'channel/index.ts', timeout: 30, emit_logs: true, emit_traces: true };
const channelsSource = { channel: "export { handler } from '@openzeppelin/relayer-plugin-channels';\n" };

/** basic-example-plugin's test-plugin, in its legacy `handler(api, params)` form: sends through the relayer API. */
const TEST_PLUGIN = `import { Speed, type PluginAPI } from '@openzeppelin/relayer-sdk';
export async function handler(api: PluginAPI, params: { destinationAddress: string; relayerId?: string }) {
  if (!params.destinationAddress) throw new Error('destinationAddress is required');
  const relayer = api.useRelayer(params.relayerId || 'sepolia-example');
  const tx = await relayer.sendTransaction({ to: params.destinationAddress, value: 1, data: '0x', gas_limit: 21000, speed: Speed.FAST });
  return { success: true, transactionId: tx.id };
}
`;

interface Shape {
  name: string;
  needs?: 'shared' | 'tls';
  spec: () => DeploymentSpec;
  /** Variables of the operator's command line (not the .env): the deployment's place, loopback services. */
  env?: (d: Deployment) => Promise<Record<string, string>> | Record<string, string>;
  logDir?: (d: Deployment) => string;
  check: (ctx: Ctx) => Promise<void>;
}

interface Ctx {
  d: Deployment;
  svc: Running;
  get(p: string): Promise<{ status: number; body: any; text: string }>;
  post(p: string, body: unknown): Promise<{ status: number; body: any; text: string }>;
}

const SHAPES: Shape[] = [
  {
    name: 'basic-example (EVM and Stellar)',
    spec: () => evmSpec({ relayers: [stellarRelayer('stellar-example', 'local-signer', {})] }),
    check: async (c) => {
      await listed(c, ['sepolia-example', 'stellar-example']);
      const stellar = (await c.get('/api/v1/relayers/stellar-example')).body.data;
      assert.equal(
        stellar.address,
        Keypair.fromRawEd25519Seed(c.d.keys.get('local-signer')!).publicKey(),
        'the same keystore is the Stellar seed',
      );
      await waitConfirmed(c, 'sepolia-example', await send(c, 'sepolia-example'));
    },
  },
  {
    name: 'basic-example-logging (LOG_MODE=file, rotated by LOG_MAX_SIZE)',
    spec: () =>
      evmSpec({ dotenv: { LOG_LEVEL: 'DEBUG', LOG_MODE: 'file', LOG_DATA_DIR: './logs', LOG_MAX_SIZE: '1024' } }),
    logDir: (d) => path.join(d.root, 'logs'),
    check: async (c) => {
      await confirmed(c, 'sepolia-example');
      const files = readdirSync(path.join(c.d.root, 'logs'));
      assert.ok(
        files.length >= 2 && files.every((f) => /^relayer\.\d{4}-\d{2}-\d{2}\.\d+\.log$/.test(f)),
        `rotated files under <app>/logs: ${files.join(', ')}`,
      );
      // A 404 is logged at debug level: LOG_LEVEL=DEBUG (the reference reads it in any case) lets it through.
      assert.equal((await c.get('/api/v1/relayers/no-such-relayer')).status, 404);
      assert.ok(
        c.svc
          .fileLines(path.join(c.d.root, 'logs'))
          .some((l) => l.includes('"level":20') && l.includes('request failed')),
        'LOG_LEVEL=DEBUG is read in any case',
      );
      assert.doesNotMatch(c.svc.output(), /relaybox listening/, 'stdout only says where the log goes');
    },
  },
  {
    name: 'basic-example-metrics (METRICS_ENABLED, METRICS_PORT)',
    spec: () => evmSpec(),
    env: async () => ({ METRICS_ENABLED: 'true', METRICS_PORT: String(await freePort()) }),
    check: async (c) => {
      await confirmed(c, 'sepolia-example');
      assert.equal(metricsPortOf(c), Number(c.d.env.METRICS_PORT), 'METRICS_PORT is where metrics are served');
      const scraped = await fetch(`http://127.0.0.1:${c.d.env.METRICS_PORT}/metrics`);
      assert.equal(scraped.status, 200, "without the API key, as the reference's metrics server");
      assert.match(await scraped.text(), /# TYPE /);
    },
  },
  {
    name: 'basic-example-plugin (plugins/test-plugin)',
    spec: () =>
      evmSpec({
        plugins: [{ id: 'test-plugin', path: 'test-plugin/index.ts', timeout: 30 }],
        pluginFiles: { 'test-plugin': TEST_PLUGIN },
      }),
    check: async (c) => {
      await pluginReady(c, 'test-plugin');
      const called = await c.post('/api/v1/plugins/test-plugin/call', {
        params: { destinationAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
      });
      assert.equal(called.status, 200, called.text);
      await waitConfirmed(c, 'sepolia-example', called.body.data.transactionId);
    },
  },
  {
    name: 'redis-storage (REPOSITORY_STORAGE_TYPE=redis, on PostgreSQL)',
    needs: 'shared',
    spec: () =>
      evmSpec({
        dotenv: { REPOSITORY_STORAGE_TYPE: 'redis', STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      }),
    env: async () => ({ DATABASE_URL: (await createTestDatabase('relaybox_refdeploy')).url }),
    check: async (c) => {
      assert.match(c.svc.output(), /store: PostgreSQL database relaybox_refdeploy_/);
      await confirmed(c, 'sepolia-example');
    },
  },
  {
    name: 'redis-tls (rediss:// with SSL_CERT_FILE)',
    needs: 'tls',
    spec: () =>
      evmSpec({
        dotenv: { REPOSITORY_STORAGE_TYPE: 'redis', STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      }),
    env: async () => ({
      REDIS_URL: tlsRedis!.url,
      SSL_CERT_FILE: tlsRedis!.caFile,
      DATABASE_URL: (await createTestDatabase('relaybox_refdeploy')).url,
    }),
    check: async (c) => {
      const ready = await c.get('/api/v1/ready');
      assert.equal(ready.status, 200, ready.text);
      assert.match(ready.text, /redis/);
      await confirmed(c, 'sepolia-example');
    },
  },
  {
    name: 'horizontal-scaling (no networks field, DISTRIBUTED_MODE, two instances on one store)',
    needs: 'shared',
    spec: horizontalSpec,
    env: async () => ({ DATABASE_URL: (await createTestDatabase('relaybox_refdeploy')).url }),
    logDir: (d) => path.join(d.root, 'logs1'),
    check: horizontalCheck,
  },
  {
    name: 'network-configuration-json-file (networks directory)',
    spec: () => evmSpec({ networkFiles: { evm: [sepolia()] } }),
    check: async (c) => {
      assert.equal((await c.get('/api/v1/networks/evm:sepolia')).status, 200);
      await confirmed(c, 'sepolia-example');
    },
  },
  {
    name: 'network-configuration-config-file (inline, with from)',
    spec: () => inlineSpec(),
    check: async (c) => {
      const custom = (await c.get('/api/v1/networks/evm:sepolia-custom')).body.data;
      assert.equal(custom.chain_id, 343434324);
      assert.deepEqual(custom.tags, ['ethereum', 'testnet', 'custom']);
      await confirmed(c, 'sepolia-direct');
    },
  },
  {
    name: 'gas-price-caching (inline network with gas_price_cache)',
    spec: () =>
      evmSpec({
        networks: [{ ...sepolia(), gas_price_cache: { enabled: true, stale_after_ms: 20000, expire_after_ms: 45000 } }],
      }),
    check: (c) => confirmed(c, 'sepolia-example'),
  },
  ...(['sqs', 'pubsub', 'rabbitmq'] as const).map(
    (queue): Shape => ({
      name: `${queue === 'sqs' ? 'aws-sqs' : queue === 'pubsub' ? 'gcp-pubsub' : 'rabbitmq'}-queue-storage (QUEUE_BACKEND=${queue}, no broker)`,
      spec: () => evmSpec({ dotenv: { QUEUE_BACKEND: queue } }),
      check: async (c) => {
        assert.equal(
          c.svc
            .output()
            .split('\n')
            .filter((l) => l.includes(`QUEUE_BACKEND=${queue}: no queue broker`)).length,
          1,
          'logged once at start',
        );
        await confirmed(c, 'sepolia-example');
      },
    }),
  ),
  {
    name: 'channels-plugin-example',
    spec: () =>
      stellarSpec(
        [
          ['channels-fund', 'channels-fund-signer', 'channels-fund', 'KEYSTORE_PASSPHRASE_FUND', FUND],
          ['channel-001', 'channel-001-signer', 'channel-001', 'KEYSTORE_PASSPHRASE_CHANNEL_001', CHANNEL],
          ['channel-002', 'channel-002-signer', 'channel-002', 'KEYSTORE_PASSPHRASE_CHANNEL_002', CHANNEL],
        ],
        channelsPlugin,
        channelsSource,
      ),
    check: (c) => stellarCheck(c, ['channels-fund', 'channel-001', 'channel-002'], 'channels'),
  },
  {
    name: 'channels-x402-plugin-example',
    spec: () =>
      stellarSpec(
        [
          ['channels-fund', 'channels-fund-signer', 'channels-fund', 'KEYSTORE_PASSPHRASE_FUND', FUND],
          [
            'x402-channels-fund',
            'x402-channels-fund-signer',
            'x402-channels-fund',
            'KEYSTORE_PASSPHRASE_X402_FUND',
            FUND,
          ],
          ['channel-001', 'channel-001-signer', 'channel-001', 'KEYSTORE_PASSPHRASE_CHANNEL_001', CHANNEL],
          ['channel-002', 'channel-002-signer', 'channel-002', 'KEYSTORE_PASSPHRASE_CHANNEL_002', CHANNEL],
        ],
        channelsPlugin,
        channelsSource,
      ),
    check: (c) => stellarCheck(c, ['channels-fund', 'x402-channels-fund', 'channel-001', 'channel-002'], 'channels'),
  },
  {
    name: 'launchtube-plugin-example',
    spec: () =>
      stellarSpec(
        [
          ['launchtube-fund', 'launchtube-fund-signer', 'launchtube-fund', 'KEYSTORE_PASSPHRASE_FUND', FUND],
          [
            'launchtube-seq-001',
            'launchtube-seq-001-signer',
            'launchtube-seq-001',
            'KEYSTORE_PASSPHRASE_SEQ_001',
            CHANNEL,
          ],
          [
            'launchtube-seq-002',
            'launchtube-seq-002-signer',
            'launchtube-seq-002',
            'KEYSTORE_PASSPHRASE_SEQ_002',
            CHANNEL,
          ],
        ],
        { id: 'launchtube-plugin', path: 'launchtube/index.ts', timeout: 30, emit_logs: true, emit_traces: true },
        { launchtube: "export { handler } from '@openzeppelin/relayer-plugin-launchtube';\n" },
      ),
    check: (c) => stellarCheck(c, ['launchtube-fund', 'launchtube-seq-001', 'launchtube-seq-002'], 'launchtube-plugin'),
  },
  {
    name: 'x402-facilitator-plugin',
    spec: x402Spec,
    check: async (c) => {
      await stellarCheck(c, ['stellar-example'], 'x402-facilitator');
      const supported = await fetch(`${c.svc.url}/api/v1/plugins/x402-facilitator/call/supported`, {
        headers: { authorization: `Bearer ${c.d.env.API_KEY}` },
      });
      assert.equal(supported.status, 200);
      const body = (await supported.json()) as { signers: Record<string, string[]> };
      assert.deepEqual(body.signers, {
        'stellar:testnet': [Keypair.fromRawEd25519Seed(c.d.keys.get('local-signer')!).publicKey()],
      });
    },
  },
];

function inlineSpec(): DeploymentSpec {
  const spec = evmSpec({
    networks: [
      { ...sepolia(), tags: ['ethereum', 'testnet'] },
      {
        from: 'sepolia',
        type: 'evm',
        network: 'sepolia-custom',
        required_confirmations: 3,
        rpc_urls: [UNREACHABLE],
        symbol: 'ETH',
        chain_id: 343434324,
        tags: ['ethereum', 'testnet', 'custom'],
      },
    ],
  });
  (spec.config.relayers as Array<Record<string, unknown>>)[0]!.id = 'sepolia-direct';
  return spec;
}

function x402Spec(): DeploymentSpec {
  return {
    config: {
      relayers: [
        stellarRelayer('stellar-example', 'local-signer', { fee_payment_strategy: 'relayer', min_balance: 0 }),
      ],
      notifications: [],
      signers: [localSigner('local-signer', 'local-signer', 'KEYSTORE_PASSPHRASE')],
      networks: './config/networks',
      plugins: [
        {
          id: 'x402-facilitator',
          path: 'x402-facilitator/index.ts',
          timeout: 30,
          emit_logs: false,
          emit_traces: false,
          raw_response: true,
          forward_logs: true,
          allow_get_invocation: true,
          config: {
            networks: [
              {
                network: 'stellar:testnet',
                type: 'stellar',
                relayer_id: 'stellar-example',
                assets: ['CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA'],
              },
            ],
          },
        },
      ],
    },
    networkFiles: { stellar: [stellarTestnet] },
    keystores: [{ file: 'local-signer', passphraseVar: 'KEYSTORE_PASSPHRASE' }],
    plugins: { 'x402-facilitator': "export { handler } from '@openzeppelin/relayer-plugin-x402-facilitator';\n" },
    dotenv: { REDIS_URL: REDIS, API_KEY: secret() },
  };
}

/** horizontal-scaling: no `networks` (the reference's default directory), shared state, the compose file's variables. */
function horizontalSpec(): DeploymentSpec {
  const spec = evmSpec({
    networks: null,
    networkFiles: { evm: [sepolia()] },
    dotenv: {
      DISTRIBUTED_MODE: 'true',
      STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      REDIS_KEY_PREFIX: '',
      REPOSITORY_STORAGE_TYPE: 'redis',
      RESET_STORAGE_ON_START: 'false',
      RPC_TIMEOUT_MS: '5000',
      PROVIDER_MAX_RETRIES: '3',
      PROVIDER_RETRY_BASE_DELAY_MS: '100',
      PROVIDER_RETRY_MAX_DELAY_MS: '2000',
      PROVIDER_MAX_FAILOVERS: '3',
      LOG_MODE: 'file',
      LOG_DATA_DIR: 'logs1/',
      LOG_MAX_SIZE: '1073741824',
    },
  });
  spec.config.notifications = [];
  delete (spec.config.relayers as Array<Record<string, unknown>>)[0]!.notification_id;
  return spec;
}

async function horizontalCheck(c: Ctx): Promise<void> {
  const lines = c.svc.fileLines(path.join(c.d.root, 'logs1'));
  assert.ok(
    lines.some((l) => l.includes('"variable":"PROVIDER_MAX_FAILOVERS"')),
    'a variable we cannot honour is named in a start-up line',
  );
  // A second instance on the same store and the same deployment: nonces are taken in the shared store.
  const appPort = await freePort();
  const second = await startRelaybox({
    ...c.d.env,
    CONFIG_DIR: path.join(c.d.root, 'config'),
    APP_PORT: String(appPort),
    LOG_MODE: 'stdout',
  });
  try {
    assert.equal(second.url, `http://127.0.0.1:${appPort}`, 'APP_PORT is where it listens');
    const other: Ctx = {
      ...c,
      svc: second,
      get: (p) => request(second.url, 'GET', p, { auth: `Bearer ${c.d.env.API_KEY}` }),
      post: (p, body) => request(second.url, 'POST', p, { auth: `Bearer ${c.d.env.API_KEY}`, body }),
    };
    const [a, b] = await Promise.all([send(c, 'sepolia-example'), send(other, 'sepolia-example')]);
    const [ta, tb] = await Promise.all([
      waitConfirmed(c, 'sepolia-example', a),
      waitConfirmed(other, 'sepolia-example', b),
    ]);
    assert.notEqual(ta.nonce, tb.nonce, 'two instances never use one nonce twice');
  } finally {
    await second.stop();
  }
}

async function listed(c: Ctx, ids: string[]): Promise<void> {
  const list = await c.get('/api/v1/relayers');
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.body.data.map((r: { id: string }) => r.id).sort(), [...ids].sort());
}

async function send(c: Ctx, relayer: string): Promise<string> {
  const sent = await c.post(`/api/v1/relayers/${relayer}/transactions`, evmBody());
  assert.equal(sent.status, 200, sent.text);
  assert.equal(
    sent.body.data.from.toLowerCase(),
    evmAddress(c.d.keys.get('local-signer')!).toLowerCase(),
    'signed with the keystore',
  );
  return sent.body.data.id as string;
}

async function waitConfirmed(c: Ctx, relayer: string, id: string): Promise<{ nonce: number }> {
  let tx: { status: string; nonce: number } | undefined;
  const done = await eventually(
    async () => {
      tx = (await c.get(`/api/v1/relayers/${relayer}/transactions/${id}`)).body.data;
      return tx?.status === 'confirmed';
    },
    { intervalMs: 100 },
  );
  if (done) return tx!;
  assert.fail(`transaction ${id} is ${tx?.status}, not confirmed`);
}

async function confirmed(c: Ctx, relayer: string): Promise<void> {
  await listed(c, [relayer]);
  await waitConfirmed(c, relayer, await send(c, relayer));
}

async function pluginReady(c: Ctx, id: string): Promise<void> {
  let plugin: { state: string; error?: unknown } | undefined;
  const ready = await eventually(
    async () => {
      plugin = (await c.get(`/api/v1/plugins/${id}`)).body.data;
      return plugin?.state === 'ready';
    },
    { intervalMs: 100 },
  );
  if (ready) return;
  assert.fail(`plugin ${id} is ${JSON.stringify(plugin)}`);
}

/** Stellar relayers listed with their keystore's address; the plugin listed, ready, and answering a call itself. */
async function stellarCheck(c: Ctx, ids: string[], plugin: string): Promise<void> {
  await listed(c, ids);
  for (const id of ids) assert.match((await c.get(`/api/v1/relayers/${id}`)).body.data.address, /^G[A-Z2-7]{55}$/);
  await pluginReady(c, plugin);
  assert.ok((await c.get('/api/v1/plugins')).body.data.some((p: { id: string }) => p.id === plugin));
  const called = await c.post(`/api/v1/plugins/${plugin}/call`, { params: {} });
  // Its answer, whatever its settings make of an empty call: not ours (no route, no runtime).
  assert.ok(![404, 503].includes(called.status), called.text);
}

function metricsPortOf(c: Ctx): number {
  const line = c.svc
    .output()
    .split('\n')
    .find((l) => l.includes('"metrics listening"'));
  assert.ok(line, 'METRICS_ENABLED=true opens the metrics listener');
  return (JSON.parse(line) as { address: { port: number } }).address.port;
}

describe("the reference's local-keystore deployments start unchanged", { concurrency: 3 }, () => {
  for (const shape of SHAPES) {
    it(shape.name, { skip: shape.needs && !shared ? 'needs Redis and PostgreSQL on 127.0.0.1' : false }, async () => {
      if (shape.needs === 'tls' && !tlsRedis)
        assert.fail('redis-server could not start with --tls-port (a build without TLS?)');
      const d = writeDeployment(shape.spec());
      try {
        const env: Record<string, string> = {
          ...d.env,
          CONFIG_DIR: path.join(d.root, 'config'),
          APP_PORT: '0',
          ...(await shape.env?.(d)),
        };
        Object.assign(d.env, env);
        for (const secretKey of d.keys.values())
          await anvil.rpc('anvil_setBalance', [evmAddress(secretKey), '0x56BC75E2D63100000']);
        const svc = await startRelaybox(env, shape.logDir?.(d));
        try {
          const get = (p: string) => request(svc.url, 'GET', p, { auth: `Bearer ${env.API_KEY}` });
          const post = (p: string, body: unknown) =>
            request(svc.url, 'POST', p, { auth: `Bearer ${env.API_KEY}`, body });
          await shape.check({ d, svc, get, post });
        } finally {
          await svc.stop();
        }
      } finally {
        d.remove();
      }
    });
  }
});

describe('rediss:// with the CA bundle named by SSL_CERT_FILE (a real redis-server with TLS)', () => {
  it("is trusted with it, and refused without it for the self-signed chain (Node's CAs only)", {
    skip: shared ? false : 'needs Redis on 127.0.0.1',
  }, async () => {
    assert.ok(tlsRedis, 'redis-server could not start with --tls-port (a build without TLS?)');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => void lines.push(l) });
    const trusted = openRedis(tlsRedis.url, logger, { ca: readFileSync(tlsRedis.caFile, 'utf8') });
    const untrusted = openRedis(tlsRedis.url, logger, {});
    try {
      assert.ok(await eventually(() => trusted.answers(), { timeoutMs: 30_000 }), 'PING over TLS with the CA');
      await eventually(() => lines.some((l) => l.includes('certificate')), { timeoutMs: 30_000 });
      assert.equal(await untrusted.answers(), false);
      assert.ok(
        lines.some((l) => /self-signed certificate in certificate chain|unable to verify|self signed/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });
});
