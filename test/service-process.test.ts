// The service as a user starts it: `node src/main.ts` in its own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { PROJECT_ROOT } from '../src/config/config.ts';
import { API_KEY, request } from './helper.ts';

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'src/main.ts')], {
    // JSON lines: the listening and devnet lines are parsed.
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const line = out.split('\n').find((l) => l.includes('relaybox listening'));
      if (line) {
        const { address } = JSON.parse(line) as { address: { port: number } };
        resolve(`http://127.0.0.1:${address.port}`);
      }
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  return { child, listening, output: () => out };
}

test('the service starts on the shipped example config, serves, and stops cleanly on SIGTERM', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-proc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = start({ API_KEY, DATA_DIR: path.join(dir, 'data') });
  const url = await svc.listening;
  const health = await request(url, 'GET', '/api/v1/health', { auth: false });
  assert.equal(health.status, 200);
  const relayers = await request(url, 'GET', '/api/v1/relayers');
  assert.equal(relayers.status, 200);
  assert.ok(existsSync(path.join(dir, 'data', 'relaybox.sqlite')));
  // The example config's EVM network is a devnet: an anvil the service starts, and stops with itself.
  const devnetLine = svc
    .output()
    .split('\n')
    .find((l) => l.includes('devnet started (anvil)'));
  assert.ok(devnetLine, svc.output());
  const devnetUrl = (JSON.parse(devnetLine) as { url: string }).url;
  const chainId = () =>
    fetch(devnetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    }).then(
      (r) => r.json(),
      () => null,
    );
  assert.deepEqual(await chainId(), { jsonrpc: '2.0', id: 1, result: '0x7a69' });
  svc.child.kill('SIGTERM');
  const [code] = await once(svc.child, 'exit');
  assert.equal(code, 0, svc.output());
  assert.match(svc.output(), /shutting down/);
  assert.equal(await chainId(), null, 'the devnet stopped with the service');
  assert.doesNotMatch(svc.output(), new RegExp(API_KEY));
});

test('without API_KEY the service prints a generated key once and warns', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-proc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = start({ DATA_DIR: path.join(dir, 'data') });
  const url = await svc.listening;
  const key = /generated one for this run[^\n]*\n\n\s+(\S+)/.exec(svc.output())?.[1];
  assert.ok(key && key.length >= 32, svc.output());
  assert.match(svc.output(), /changes on every start/);
  const res = await request(url, 'GET', '/api/v1/relayers', { auth: `Bearer ${key}` });
  assert.equal(res.status, 200);
  svc.child.kill('SIGTERM');
  await once(svc.child, 'exit');
});

test('an invalid config file stops the service with a message naming the bad field', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-proc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = path.join(dir, 'bad.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [{ type: 'evm', network: 'x', chain_id: 'one', rpc_urls: ['http://127.0.0.1:8545'] }],
      signers: [],
      relayers: [],
    }),
  );
  const svc = start({ API_KEY, DATA_DIR: path.join(dir, 'data'), CONFIG_PATH: configPath });
  await assert.rejects(svc.listening, /networks\.0\.chain_id/);
  assert.equal(svc.child.exitCode, 1);
});

test('a short API_KEY is refused at start', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-proc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const svc = start({ API_KEY: 'short', DATA_DIR: path.join(dir, 'data') });
  await assert.rejects(svc.listening, /API_KEY must be at least 32 characters/);
});
