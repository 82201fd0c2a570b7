// The image, built and run for real (`npm run test:image`; scripts/image-test-setup.sh prepares the machine, as
// ../shared/notes/containers.md says: docker.io on vfs without a bridge, a base image made from Debian and the
// .nvmrc Node, host networking). A reference example (basic-example: its config/ folder and the repository's
// config/networks mounted as its compose file mounts them, its environment) starts from the image, sends an EVM
// transaction to an anvil on the host, runs as non-root, and stops on SIGTERM within 10 s.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { privateKeyToAddress } from 'viem/accounts';
import { decryptKeystore } from '../../src/signers/local/keystore.ts';
import { makeKeystore } from '../support/keystore.ts';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { API_KEY, request } from '../helper.ts';
import { startAnvil, type TestAnvil } from '../support/anvil.ts';
import { freePort } from '../config/reference-deployment.ts';
import { basicExample } from './example.ts';

const run = promisify(execFile);
const NODE_VERSION = readFileSync(path.join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim().replace(/^v/, '');
const BASE = `local/node:${NODE_VERSION}`;
const IMAGE = 'relaybox:image-test';
const CONTAINER = `relaybox-image-test-${process.pid}`;
const PASSPHRASE = 'Image-Test-Passphrase-42';
const WEBHOOK_SIGNING_KEY = 'image-test-webhook-signing-key-0123456789';

async function docker(args: string[], timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Builds the image as a user would (scripts/build-image.sh, the classic builder, the host's network for npm's registry) and checks its settings. */
async function buildImage(): Promise<{ buildSeconds: number; size: number; baseSize: number }> {
  const buildStarted = Date.now();
  // The dependency stage comes from the cache scripts/image-test-setup.sh builds (npm ci on vfs takes minutes).
  await run(
    path.join(PROJECT_ROOT, 'scripts', 'build-image.sh'),
    ['--network', 'host', '--build-arg', `NODE_IMAGE=${BASE}`, '-t', IMAGE],
    { env: { ...process.env, DOCKER_BUILDKIT: '0' }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: Error & { killed?: boolean }) =>
    assert.fail(
      err.killed
        ? 'the build took over 4 minutes: run scripts/image-test-setup.sh first, which builds the dependency stage once per lockfile'
        : err.message,
    ),
  );
  const buildSeconds = (Date.now() - buildStarted) / 1000;
  const inspect = JSON.parse(await docker(['image', 'inspect', IMAGE]))[0] as {
    Size: number;
    Config: { User: string; Env: string[]; Healthcheck?: { Test: string[] }; Entrypoint: string[]; WorkingDir: string };
  };
  const baseSize = (JSON.parse(await docker(['image', 'inspect', BASE]))[0] as { Size: number }).Size;
  assert.equal(inspect.Config.User, '1000:1000');
  assert.ok(inspect.Config.Env.includes('HOST=0.0.0.0'));
  assert.equal(inspect.Config.WorkingDir, '/app');
  assert.match(inspect.Config.Healthcheck?.Test.join(' ') ?? '', /\/api\/v1\/health/);
  assert.equal(inspect.Config.Entrypoint[0], '/usr/bin/tini');

  return { buildSeconds, size: inspect.Size, baseSize };
}

let anvil: TestAnvil | undefined;
let scratch: string | undefined;
after(async () => {
  await docker(['rm', '-f', CONTAINER]).catch(() => undefined);
  await anvil?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the image builds, runs a reference example from its compose layout, sends on anvil, runs as non-root and stops on SIGTERM', {
  timeout: 300_000,
}, async (t) => {
  const began = Date.now();
  await docker(['info', '--format', '{{.ServerVersion}}']).catch(() =>
    assert.fail('docker is not running here: run scripts/image-test-setup.sh first (as root)'),
  );
  await docker(['image', 'inspect', BASE]).catch(() =>
    assert.fail(`no ${BASE} base image: run scripts/image-test-setup.sh first`),
  );

  const { buildSeconds, size, baseSize } = await buildImage();
  t.diagnostic(`build: ${buildSeconds.toFixed(0)} s`);

  anvil = await startAnvil({ chainId: 11155111 });
  scratch = mkdtempSync(path.join(tmpdir(), 'relaybox-image-'));
  chmodSync(scratch, 0o755);
  const { config, networks } = basicExample(scratch, anvil.network('sepolia', { is_testnet: true }));
  const secret = randomBytes(32);
  writeFileSync(path.join(config, 'keys', 'local-signer.json'), JSON.stringify(makeKeystore(secret, PASSPHRASE)));
  await anvil.rpc('anvil_setBalance', [privateKeyToAddress(`0x${secret.toString('hex')}`), '0x56BC75E2D63100000']);

  // As the example's docker-compose.yaml runs it: its two volumes and its environment. Host networking replaces its
  // networks (none can be made here), so its `redis` host is this machine's Redis, and APP_PORT a free port.
  const port = await freePort();
  const started = Date.now();
  await docker([
    'run',
    '-d',
    '--name',
    CONTAINER,
    '--network',
    'host',
    '--security-opt',
    'no-new-privileges',
    '-v',
    `${config}:/app/config/`,
    '-v',
    `${networks}:/app/config/networks`,
    '-e',
    'REDIS_URL=redis://127.0.0.1:6379',
    '-e',
    'RATE_LIMIT_REQUESTS_PER_SECOND=10',
    '-e',
    'RATE_LIMIT_BURST=50',
    '-e',
    `WEBHOOK_SIGNING_KEY=${WEBHOOK_SIGNING_KEY}`,
    '-e',
    `API_KEY=${API_KEY}`,
    '-e',
    `KEYSTORE_PASSPHRASE=${PASSPHRASE}`,
    '-e',
    `APP_PORT=${port}`,
    // JSON lines, as a log shipper reads them: the start's times are read from them below.
    '-e',
    'LOG_FORMAT=json',
    IMAGE,
  ]);
  const base = `http://127.0.0.1:${port}`;
  // Both streams: the service logs to stdout, but Node's own refusals (a module missing) go to stderr.
  const logs = () =>
    run('docker', ['logs', CONTAINER], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => stdout.trim() + (stderr.trim() ? `\n${stderr.trim()}` : ''),
      (e: Error) => e.message,
    );
  // A container that exits (a file missing from the image, a refused config) ends the wait at once, with its output.
  let exited = false;
  const healthy = async () => {
    if ((await docker(['inspect', '-f', '{{.State.Running}}', CONTAINER]).catch(() => 'false')) !== 'true')
      return (exited = true);
    return (await request(base, 'GET', '/api/v1/health', { auth: false })).status === 200 ? true : undefined;
  };
  await until('the health route', healthy, 120_000).catch(async (err) =>
    assert.fail(`${(err as Error).message}\n${await logs()}`),
  );
  if (exited) assert.fail(`the container exited before serving:\n${await logs()}`);
  const startSeconds = (Date.now() - started) / 1000;
  // The service's own start, from its first log line to `relaybox listening` (the rest is the container's creation).
  const times = (await logs())
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { time: number; msg: string });
  const serviceSeconds = ((times.find((l) => l.msg === 'relaybox listening')?.time ?? NaN) - times[0]!.time) / 1000;
  t.diagnostic(
    `docker run to the health route answering: ${startSeconds.toFixed(1)} s; the service's own start: ${serviceSeconds.toFixed(1)} s`,
  );

  const sent = await request(base, 'POST', '/api/v1/relayers/sepolia-example/transactions', {
    body: {
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1,
      max_fee_per_gas: 20_000_000_000,
      max_priority_fee_per_gas: 1_000_000_000,
    },
  });
  assert.equal(sent.status, 200, sent.text);
  const id = sent.body.data.id as string;
  const final = await until(
    'the transaction to be mined',
    async () => {
      const tx = await request(base, 'GET', `/api/v1/relayers/sepolia-example/transactions/${id}`);
      return ['mined', 'confirmed'].includes(tx.body.data?.status) ? tx.body.data : undefined;
    },
    60_000,
  );
  const receipt = await anvil.waitMined(final.hash);
  assert.equal(receipt.status, '0x1');

  // .nvmrc's Node (the base was made from it).
  const nodeVersion = await docker(['exec', CONTAINER, 'node', '-p', 'process.versions.node']);
  assert.ok(
    nodeVersion === NODE_VERSION || nodeVersion.startsWith(`${NODE_VERSION}.`),
    `${nodeVersion} against .nvmrc's ${NODE_VERSION}`,
  );
  // Production dependencies only (no anvil, no TypeScript compiler), and the create_key tool, in the running container.
  const listing = await docker([
    'exec',
    CONTAINER,
    'sh',
    '-c',
    'ls node_modules/@foundry-rs node_modules/typescript 2>&1; ls node_modules/viem >/dev/null && echo viem-there',
  ]);
  assert.match(
    listing,
    /@foundry-rs.*No such file or directory[\s\S]*typescript.*No such file or directory[\s\S]*viem-there/,
  );
  const made = await docker([
    'exec',
    CONTAINER,
    '/app/bin/relaybox',
    'keystore',
    'create',
    '--password',
    PASSPHRASE,
    '--output-dir',
    'config/keys',
    '--filename',
    'made-here.json',
  ]);
  assert.match(made, /Keystore file created at: \/app\/config\/keys\/made-here\.json/);
  assert.equal(
    decryptKeystore(JSON.parse(readFileSync(path.join(config, 'keys', 'made-here.json'), 'utf8')), PASSPHRASE).length,
    32,
  );

  // Non-root: the service's processes, as the host sees them.
  const top = await docker(['top', CONTAINER, '-eo', 'pid,uid,comm']);
  const processes = top
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
  // tini, the service and its plugin runtime (Node names its main thread `MainThread`).
  assert.ok(processes.length >= 3 && processes[0]![2] === 'tini', top);
  assert.ok(
    processes.every(([, uid]) => uid === '1000'),
    top,
  );
  // Docker's own health check reports healthy.
  await until(
    'docker to report the container healthy',
    async () =>
      (await docker(['inspect', '-f', '{{.State.Health.Status}}', CONTAINER])) === 'healthy' ? true : undefined,
    60_000,
  );

  // docker stop: SIGTERM through tini, SIGKILL only after 10 s. A drained stop exits 0 (a kill would be 137).
  const stopStarted = Date.now();
  await docker(['stop', '-t', '10', CONTAINER], 30_000);
  const stopSeconds = (Date.now() - stopStarted) / 1000;
  const state = JSON.parse(await docker(['inspect', '-f', '{{json .State}}', CONTAINER])) as {
    ExitCode: number;
    OOMKilled: boolean;
  };
  const out = await logs();
  assert.equal(state.ExitCode, 0, out);
  assert.ok(stopSeconds < 10, `stopped in ${stopSeconds} s`);
  assert.match(out, /shutting down: draining in-flight requests/);
  assert.match(out, /relaybox stopped/);
  assert.doesNotMatch(out, new RegExp(`${API_KEY}|${PASSPHRASE}|${WEBHOOK_SIGNING_KEY}`));

  // The compose files shipped beside the image parse as compose files.
  for (const file of ['docker-compose.sqlite.yaml', 'docker-compose.postgres-redis.yaml']) {
    await run('docker-compose', ['-f', path.join(PROJECT_ROOT, 'deploy', file), 'config', '-q'], {
      env: { ...process.env, API_KEY, STORAGE_ENCRYPTION_KEY: API_KEY },
    });
  }
  t.diagnostic(
    `image ${(size / 1e6).toFixed(0)} MB (base ${(baseSize / 1e6).toFixed(0)} MB, Relaybox's layers ${((size - baseSize) / 1e6).toFixed(0)} MB); build ${buildSeconds.toFixed(0)} s; docker run to the health route ${startSeconds.toFixed(1)} s (the service's own start ${serviceSeconds.toFixed(1)} s); stop ${stopSeconds.toFixed(1)} s; whole test ${((Date.now() - began) / 1000).toFixed(0)} s`,
  );
});
