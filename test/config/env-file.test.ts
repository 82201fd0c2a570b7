// `.env` read at start as the reference reads it (dotenvy): the working directory or a parent, the real environment
// winning, and its example files' syntax (unquoted spaces, `#` comments, quoted `\n`, empty values) taken unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { decryptKeystore } from '../../src/signers/local/keystore.ts';
import { API_KEY, request } from '../helper.ts';
import { baseEnv, runRelaybox, RELAYBOX } from '../support/cli.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-envfile-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Lines as the reference's own example files write them (its .env.example and examples/*/.env.example), and the
// issue's value with unquoted spaces, which `set -a; . .env` cannot read.
const REFERENCE_STYLE = [
  '# For defaults see: ./docker-compose.yml',
  'LOG_LEVEL=debug',
  'KEYSTORE_PASSPHRASE=correct horse battery staple',
  'WEBHOOK_SIGNING_KEY=<webhook_signing_key> # This is the passphrase for the keystore file',
  'API_KEY=',
  'GCP_PRIVATE_KEY="-----BEGIN PRIVATE EXAMPLE KEY-----\\nyour_private_key_here\\n-----END PRIVATE EXAMPLE KEY-----\\n"',
  'ALLOWED_FUND_RELAYER_IDS=channels-fund,x402-channels-fund',
  '',
  '# GCP_CREDENTIALS_FILE=',
  'AZURE_CLIENT_SECRET=',
].join('\n');

/** What src/config/env-file.ts loads from `cwd`, in a process with only `env`. */
async function loaded(
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ file: string | undefined; kept: string[]; env: Record<string, string> }> {
  const script = `const m = await import(${JSON.stringify(path.join(PROJECT_ROOT, 'src/config/env-file.ts'))}); const r = m.loadEnvFile(); process.stdout.write(JSON.stringify({ file: r.file, kept: r.kept, env: process.env }));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await once(child, 'exit');
  return JSON.parse(out) as { file: string | undefined; kept: string[]; env: Record<string, string> };
}

test("the reference's .env syntax is read unchanged, and a variable already in the environment wins", async (t) => {
  const dir = scratch(t);
  writeFileSync(path.join(dir, '.env'), REFERENCE_STYLE);
  const { file, kept, env } = await loaded(dir, { LOG_LEVEL: 'warn' });
  assert.equal(file, path.join(dir, '.env'));
  assert.equal(env.KEYSTORE_PASSPHRASE, 'correct horse battery staple');
  assert.equal(env.WEBHOOK_SIGNING_KEY, '<webhook_signing_key>');
  assert.equal(env.API_KEY, '');
  assert.equal(
    env.GCP_PRIVATE_KEY,
    '-----BEGIN PRIVATE EXAMPLE KEY-----\nyour_private_key_here\n-----END PRIVATE EXAMPLE KEY-----\n',
  );
  assert.equal(env.ALLOWED_FUND_RELAYER_IDS, 'channels-fund,x402-channels-fund');
  assert.equal(env.GCP_CREDENTIALS_FILE, undefined, 'a commented-out line sets nothing');
  assert.equal(env.LOG_LEVEL, 'warn', 'the real environment wins over the file');
  assert.deepEqual(kept, ['LOG_LEVEL']);
});

test('.env is looked for in the working directory, then its parents (dotenvy), the nearest one read', async (t) => {
  const dir = scratch(t);
  const deep = path.join(dir, 'a', 'b');
  mkdirSync(deep, { recursive: true });
  writeFileSync(path.join(dir, '.env'), 'FROM=top\nONLY_TOP=yes\n');
  assert.equal((await loaded(deep)).env.FROM, 'top');
  writeFileSync(path.join(dir, 'a', '.env'), 'FROM=middle\n');
  const nearer = await loaded(deep);
  assert.equal(nearer.file, path.join(dir, 'a', '.env'));
  assert.equal(nearer.env.FROM, 'middle');
  assert.equal(nearer.env.ONLY_TOP, undefined, 'one file only, as the reference');
});

test('the service reads .env from its working directory at start: its API_KEY, PORT and DATA_DIR apply', async (t) => {
  const dir = scratch(t);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ networks: [], signers: [], relayers: [] }));
  // An unquoted value with spaces before the lines that matter: `set -a; . .env` stopped there.
  writeFileSync(
    path.join(dir, '.env'),
    `KEYSTORE_PASSPHRASE=correct horse battery staple\nAPI_KEY=${API_KEY}\nPORT=0\nDATA_DIR=./state\nCONFIG_PATH=./config.json\nLOG_LEVEL=debug\n`,
  );
  const child = spawn(RELAYBOX, [], {
    cwd: dir,
    env: { ...baseEnv(), LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('relaybox listening'));
      if (line) resolve(`http://127.0.0.1:${(JSON.parse(line) as { address: { port: number } }).address.port}`);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  assert.equal((await request(url, 'GET', '/api/v1/relayers')).status, 200, 'the key from .env is the key');
  assert.doesNotMatch(out, /generated one for this run/);
  assert.match(out, /"dataDir":"[^"]*\/state"/);
  assert.doesNotMatch(out, /"level":20/, 'LOG_LEVEL from the environment won over the file');
  assert.match(out, /environment file read \(\.env\)/);
  assert.doesNotMatch(out, /correct horse/, 'values are never logged');
  child.kill('SIGTERM');
  await once(child, 'exit');
});

test('keystore create takes KEYSTORE_PASSPHRASE from .env when --password is not given', async (t) => {
  const dir = scratch(t);
  writeFileSync(path.join(dir, '.env'), 'KEYSTORE_PASSPHRASE=Correct horse battery 42 staple!\n');
  const run = await runRelaybox(['keystore', 'create', '-f', 'k.json'], { cwd: dir });
  assert.equal(run.status, 0, run.stderr);
  const keystore = JSON.parse(readFileSync(path.join(dir, 'k.json'), 'utf8')) as object;
  assert.equal(decryptKeystore(keystore, 'Correct horse battery 42 staple!').length, 32);
});
