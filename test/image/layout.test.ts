// The image's short version, run by `npm test` (the full build is `npm run test:image`, minutes long on vfs): what
// .dockerignore lets into the build context, laid out at app/ as the Dockerfile copies it, with the Dockerfile's own
// ENV, WORKDIR, entry point and health check, runs the reference's basic-example from a mounted config folder. A file
// the service needs at run time that the context leaves out fails here, without a Docker daemon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { API_KEY, request } from '../helper.ts';
import { makeKeystore } from '../support/keystore.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../config/reference-deployment.ts';
import { basicExample } from './example.ts';

const run = promisify(execFile);
const PASSPHRASE = 'Layout-Test-Passphrase-42';

/** The paths an allow-list .dockerignore (`*`, then `!path` lines) lets into the build context. */
function contextPaths(): string[] {
  const lines = readFileSync(path.join(PROJECT_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '*', '.dockerignore is read as an allow list: `*` first, then `!path` lines');
  return lines.slice(1).map((l) => {
    assert.ok(l.startsWith('!'), `.dockerignore line '${l}': only '!path' lines follow '*'`);
    return l.slice(1).replace(/\/$/, '');
  });
}

/** The last stage's ENV, WORKDIR, ENTRYPOINT and HEALTHCHECK of the Dockerfile, as the runtime image has them. */
function finalStage() {
  const text = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const stage = text.slice(text.lastIndexOf('\nFROM '));
  const env = Object.fromEntries(
    [...stage.matchAll(/^ENV (.+)$/gm)].flatMap((m) =>
      m[1]!
        .trim()
        .split(/\s+/)
        .map((kv) => kv.split('=') as [string, string]),
    ),
  );
  const workdir = /^WORKDIR (.+)$/m.exec(stage)?.[1]?.trim();
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.+\])$/m.exec(stage)?.[1] ?? '[]') as string[];
  const health = JSON.parse(/^HEALTHCHECK .*?CMD (\[.+\])$/m.exec(stage)?.[1] ?? '[]') as string[];
  return { env, workdir, entrypoint, health };
}

test("the build context, laid out as the image has it, runs a reference example with the Dockerfile's settings and stops on SIGTERM", {
  timeout: 180_000,
}, async (t) => {
  const { env: imageEnv, workdir, entrypoint, health } = finalStage();
  assert.equal(workdir, '/app');
  assert.deepEqual(entrypoint.slice(0, 3), ['/usr/bin/tini', '--', '/app/bin/relaybox']);
  assert.equal(health[0], 'node', 'the health check runs with the Node already in the image');

  const scratch = mkdtempSync(path.join(tmpdir(), 'relaybox-layout-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  // /app: the context's files (COPY . /out/root/app/), the dependencies beside them, the writable folders.
  const app = path.join(scratch, 'app');
  for (const entry of contextPaths()) {
    assert.ok(
      existsSync(path.join(PROJECT_ROOT, entry)),
      `.dockerignore lets in '${entry}', which the checkout does not have`,
    );
    cpSync(path.join(PROJECT_ROOT, entry), path.join(app, entry), { recursive: true });
  }
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(app, 'node_modules'));
  for (const dir of ['data', 'plugins', 'logs']) mkdirSync(path.join(app, dir), { recursive: true });
  // The compose file's volumes: the example's config folder at /app/config, its networks at /app/config/networks.
  const { config, networks } = basicExample(scratch, {
    type: 'evm',
    network: 'sepolia',
    chain_id: 11155111,
    required_confirmations: 1,
    symbol: 'ETH',
    average_blocktime_ms: 12000,
    features: ['eip1559'],
    rpc_urls: ['http://127.0.0.1:9'],
    is_testnet: true,
  });
  cpSync(config, path.join(app, 'config'), { recursive: true });
  cpSync(networks, path.join(app, 'config', 'networks'), { recursive: true });
  writeFileSync(
    path.join(app, 'config', 'keys', 'local-signer.json'),
    JSON.stringify(makeKeystore(randomBytes(32), PASSPHRASE)),
  );

  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    ...imageEnv,
    API_KEY,
    KEYSTORE_PASSPHRASE: PASSPHRASE,
    WEBHOOK_SIGNING_KEY: 'layout-test-webhook-signing-key-0123456789',
    APP_PORT: String(port),
    LOG_FORMAT: 'json',
    TMPDIR: scratch,
  };
  const bin = path.join(app, 'bin', 'relaybox');
  // `docker run relaybox check`: the entry point's own command, from the working directory.
  const checked = await run(bin, ['check'], { cwd: app, env, timeout: 60_000 }).catch(
    (e: Error & { stdout?: string; stderr?: string }) =>
      assert.fail(`relaybox check failed in the image's layout: ${e.stdout ?? ''}${e.stderr ?? e.message}`),
  );
  const report = checked.stdout + checked.stderr;
  assert.match(report, /a start would run/);
  // The image's conventions, as the service reads them: the config folder at /app/config, the SQLite data in /app/data.
  assert.match(report, new RegExp(`config\\s+${app}/config/config\\.json \\(found by CONFIG_DIR\\)`));
  assert.match(report, new RegExp(`store\\s+SQLite file ${app}/data/`));

  const child = spawn(bin, [], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = once(child, 'exit');
  t.after(() => child.exitCode === null && child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  const up = await eventually(
    async () =>
      child.exitCode !== null ||
      (await request(base, 'GET', '/api/v1/health', { auth: false }).then(
        (r) => r.status === 200,
        () => false,
      )),
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  assert.ok(up && child.exitCode === null, `the service did not serve from the image's layout:\n${out}`);
  // The Dockerfile's HEALTHCHECK command, as Docker runs it in the container.
  await run(health[0]!, health.slice(1), { cwd: app, env, timeout: 30_000 }).catch(() =>
    assert.fail(`the Dockerfile's health check failed against a serving service:\n${out}`),
  );
  // The SQLite data lands in /app/data, the folder the compose file keeps in a volume.
  assert.ok(
    readdirSync(path.join(app, 'data')).some((f) => f.endsWith('.sqlite')),
    `no SQLite file in app/data: ${readdirSync(path.join(app, 'data'))}`,
  );

  child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, out);
  assert.match(out, /relaybox stopped/);
  assert.doesNotMatch(out, new RegExp(`${API_KEY}|${PASSPHRASE}`));
});
