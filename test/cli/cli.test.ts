// The command line (src/cli/): bin/relaybox as a user runs it, each command in a scratch folder of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { decryptKeystore } from '../../src/signers/local/keystore.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import type { SignerConfig } from '../../src/config/config.ts';
import { API_KEY } from '../helper.ts';
import { runRelaybox } from '../support/cli.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A config with nothing that starts a devnet: its start reaches the store quickly. */
function emptyConfig(dir: string): string {
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ networks: [], signers: [], relayers: [], notifications: [], plugins: [] }));
  return file;
}

test('--help prints the usage and starts nothing: no key generated, no data folder, exit 0', async (t) => {
  const dir = scratch(t);
  for (const args of [['--help'], ['-h'], ['help']]) {
    const run = await runRelaybox(args, { cwd: dir });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: relaybox/);
    assert.match(run.stdout, /keystore create/);
    assert.doesNotMatch(run.stdout + run.stderr, /generated one|listening|devnet|config drift/);
  }
  assert.equal(existsSync(path.join(dir, 'data')), false, 'no store was opened');
});

test("--version prints package.json's version", async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  for (const args of [['--version'], ['-V']]) {
    const run = await runRelaybox(args, { cwd: scratch(t) });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, `relaybox ${version}\n`);
  }
});

test('an unknown option, command or extra argument is refused with the usage (exit 2), and nothing starts', async (t) => {
  const dir = scratch(t);
  for (const [args, named] of [
    [['--bogus'], /--bogus/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['check', 'extra'], /unexpected argument 'extra'/],
    [['keystore'], /needs a subcommand/],
    [['keystore', 'create', '--colour'], /--colour/],
  ] as const) {
    const run = await runRelaybox([...args], { cwd: dir });
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, named);
    assert.match(run.stderr, /Usage: relaybox/);
    assert.equal(run.stdout, '');
  }
  assert.equal(existsSync(path.join(dir, 'data')), false);
});

test('check: a valid setup prints what would start and exits 0, without opening the store or starting a devnet', async (t) => {
  const dir = scratch(t);
  // The shipped example config: it has an anvil devnet, which a start would launch.
  const run = await runRelaybox(['check'], { cwd: dir, env: { API_KEY, DATA_DIR: path.join(dir, 'data'), PORT: '0' } });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /a start would run/);
  assert.match(run.stdout, /store +SQLite file .*relaybox\.sqlite/);
  assert.match(run.stdout, /anvil devnets started for devnet/);
  assert.match(run.stdout, /relayers +sepolia-example \(evm:devnet/);
  assert.match(run.stdout, /no problems found/);
  assert.doesNotMatch(run.stdout, new RegExp(API_KEY), 'the key is never printed');
  assert.equal(existsSync(path.join(dir, 'data')), false, 'no store was opened');
  assert.doesNotMatch(run.stdout + run.stderr, /devnet started|listening/);
});

test("check lists every problem of the environment, and the config file's, and exits 1", async (t) => {
  const dir = scratch(t);
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ signers: [], relayers: [{ id: 'r', name: 'r', network: 'nowhere', signer_id: 's' }] }),
  );
  const env = {
    API_KEY: 'short',
    STORAGE_ENCRYPTION_KEY: 'x',
    PORT: 'eighty',
    LOG_LEVEL: 'loud',
    CONFIG_PATH: config,
    DATA_DIR: path.join(dir, 'data'),
  };
  const run = await runRelaybox(['check'], { cwd: dir, env });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /would be refused/);
  assert.match(run.stdout, /5 problems:/);
  for (const problem of [
    /API_KEY must be at least 32/,
    /STORAGE_ENCRYPTION_KEY must be at least 32/,
    /PORT must be an integer/,
    /LOG_LEVEL must be one of/,
    /invalid config file .*networks/,
  ]) {
    assert.match(run.stdout, problem);
  }
  assert.equal(existsSync(path.join(dir, 'data')), false);
});

test('check names a secret the config reads from an unset variable, and goes on to the next problem', async (t) => {
  const dir = scratch(t);
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      networks: [],
      signers: [],
      relayers: [],
      notifications: [
        { id: 'n', url: 'https://example.com/hook', signing_key: { type: 'env', value: 'WEBHOOK_SIGNING_KEY' } },
      ],
    }),
  );
  const run = await runRelaybox(['check'], { cwd: dir, env: { API_KEY, CONFIG_PATH: config, RATE_LIMIT_RPS: '0' } });
  assert.equal(run.status, 1, run.stdout);
  assert.match(run.stdout, /2 problems:/);
  assert.match(run.stdout, /environment variable WEBHOOK_SIGNING_KEY is not set/);
  assert.match(run.stdout, /RATE_LIMIT_RPS must be an integer >= 1/);
});

async function occupiedPort(t: { after(fn: () => Promise<void>): void }): Promise<number> {
  const blocker: Server = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as { port: number }).port;
}

test('a start on a busy port fails in one sentence, before the store is opened or a devnet started', async (t) => {
  const port = await occupiedPort(t);
  // As a person reads it (the default, compact) and as a log shipper does (json).
  for (const [format, isFatal] of [
    [undefined, (l: string) => / FATAL: /.test(l)],
    ['json', (l: string) => l.includes('"level":60')],
  ] as const) {
    const dir = scratch(t);
    // The shipped example config (with its devnet): the refusal comes before anvil would have been started.
    const run = await runRelaybox([], {
      cwd: dir,
      env: { API_KEY, PORT: String(port), DATA_DIR: path.join(dir, 'data'), LOG_FORMAT: format },
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const fatal = run.stdout.split('\n').filter(isFatal);
    assert.equal(fatal.length, 1, run.stdout);
    assert.match(
      fatal[0]!,
      new RegExp(
        `relaybox cannot start: the API port 127\\.0\\.0\\.1:${port} is already in use[^"]*set PORT \\(or APP_PORT\\) to another port`,
      ),
    );
    assert.doesNotMatch(run.stdout + run.stderr, /EADDRINUSE|\n\s+at |devnet started|config drift/);
    assert.equal(existsSync(path.join(dir, 'data')), false, 'the store was not opened');
  }
});

test('check reports a busy port as a problem too', async (t) => {
  const dir = scratch(t);
  const port = await occupiedPort(t);
  const run = await runRelaybox(['check'], {
    cwd: dir,
    env: { API_KEY, CONFIG_PATH: emptyConfig(dir), METRICS_PORT: String(port) },
  });
  assert.equal(run.status, 1, run.stdout);
  assert.match(run.stdout, new RegExp(`the metrics port 127\\.0\\.0\\.1:${port} is already in use`));
});

const PASSWORD = 'Correct-Horse-42-battery';

function loadWithLocalSigner(file: string, passphrase: string): string {
  const signer = {
    id: 'k',
    type: 'local',
    config: { path: file, passphrase: { type: 'plain', value: passphrase } },
  } as SignerConfig;
  return resolveSigner(signer, 'evm', {}).address;
}

test("keystore create writes a keystore the local signer loads, readable by its owner only, as the reference's create_key", async (t) => {
  const dir = scratch(t);
  const run = await runRelaybox(
    ['keystore', 'create', '--password', PASSWORD, '--output-dir', 'config/keys', '--filename', 'local-signer.json'],
    { cwd: dir },
  );
  assert.equal(run.status, 0, run.stderr);
  const file = path.join(dir, 'config', 'keys', 'local-signer.json');
  assert.match(run.stdout, new RegExp(`Keystore file created at: ${file.replaceAll('.', '\\.')}`));
  const address = /Address: (0x[0-9a-fA-F]{40})/.exec(run.stdout)?.[1];
  assert.ok(address, run.stdout);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(loadWithLocalSigner(file, PASSWORD), address);
  assert.doesNotMatch(run.stdout + run.stderr + readFileSync(file, 'utf8'), new RegExp(PASSWORD));
  assert.throws(() => decryptKeystore(JSON.parse(readFileSync(file, 'utf8')), `${PASSWORD}x`), /wrong passphrase/);

  const again = await runRelaybox(
    ['keystore', 'create', '-p', PASSWORD, '-o', 'config/keys', '-f', 'local-signer.json'],
    { cwd: dir },
  );
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already exists\. Use --force to overwrite/);
  assert.equal(loadWithLocalSigner(file, PASSWORD), address, 'the file was left as it was');
  const forced = await runRelaybox(
    ['keystore', 'create', '-p', PASSWORD, '-o', 'config/keys', '-f', 'local-signer.json', '--force'],
    { cwd: dir },
  );
  assert.equal(forced.status, 0, forced.stderr);
  const replaced = /Address: (0x[0-9a-fA-F]{40})/.exec(forced.stdout)?.[1];
  assert.ok(replaced && replaced !== address, forced.stdout);
  // The signer keeps what it loaded per path; the file's own address field says which key it now holds.
  assert.equal(
    (JSON.parse(readFileSync(file, 'utf8')) as { address: string }).address,
    replaced.slice(2).toLowerCase(),
  );
});

test("keystore create: the reference's password rule, its --disable-password-check, and a timestamped default name", async (t) => {
  const dir = scratch(t);
  for (const [weak, why] of [
    ['Short1!', /at least 12 characters/],
    ['alllowercase12!', /one uppercase letter, one lowercase letter, one number, and one special character/],
    ['NoDigitsHere!!', /one number/],
    ['NoSpecial12345', /special character/],
  ] as const) {
    const run = await runRelaybox(['keystore', 'create', '-p', weak], { cwd: dir });
    assert.equal(run.status, 1, weak);
    assert.match(run.stderr, why);
  }
  const missing = await runRelaybox(['keystore', 'create'], { cwd: dir });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /give --password, or set KEYSTORE_PASSPHRASE/);
  const weakAllowed = await runRelaybox(['keystore', 'create', '-p', 'test', '--disable-password-check'], { cwd: dir });
  assert.equal(weakAllowed.status, 0, weakAllowed.stderr);
  const file = /created at: (\S+)/.exec(weakAllowed.stdout)?.[1];
  assert.match(path.basename(file ?? ''), /^key_\d{8}_\d{6}\.json$/);
  assert.equal(path.dirname(file!), dir);
  assert.match(loadWithLocalSigner(file!, 'test'), /^0x[0-9a-fA-F]{40}$/);
});
