// Files the config names (issue 23, part 8): read only when they are regular files within a size limit, opened so a
// FIFO can never block, never echoed into an error; and a start that waits on something never answering stops on
// SIGTERM. The service is a real child process where the start itself is what is tested.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import {
  CONFIG_FILE_MAX_BYTES,
  KEYSTORE_MAX_BYTES,
  readJsonFile,
  readRegularFile,
} from '../../src/config/read-file.ts';
import { API_KEY } from '../helper.ts';
import { startService } from '../faults/support.ts';
import { makeKeystore } from '../support/keystore.ts';

const CANARY = 'canary-0123456789-never-echo-me';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function fifo(dir: string, name: string): string {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/** A config of one keystore signer at `keystorePath` (no relayers: nothing else is started). */
function keystoreConfig(dir: string, keystorePath: string): string {
  const file = path.join(dir, 'config.json');
  const signer = {
    id: 'ks',
    type: 'local',
    config: { path: keystorePath, passphrase: { type: 'plain', value: 'pass' } },
  };
  writeFileSync(
    file,
    JSON.stringify({ networks: [], signers: [signer], relayers: [], notifications: [], plugins: [] }),
  );
  return file;
}

const load = (configPath: string) => loadConfig({ API_KEY, CONFIG_PATH: configPath });

test('a FIFO, a directory, a device and an oversized file are refused by name and kind, at once', (t) => {
  const dir = tempDir(t);
  const pipe = fifo(dir, 'pipe.json');
  const big = path.join(dir, 'big.json');
  writeFileSync(big, `{"x":"${'a'.repeat(CONFIG_FILE_MAX_BYTES)}"}`);
  const cases: Array<[string, RegExp]> = [
    [pipe, /config file .*pipe\.json is a FIFO \(named pipe\), not a regular file/],
    [dir, /config file .* is a directory, not a regular file/],
    ['/dev/zero', /config file \/dev\/zero is a character device, not a regular file/],
    [big, /config file .*big\.json is \d+ bytes, over the 1048576-byte limit/],
    [path.join(dir, 'missing.json'), /config file .*missing\.json does not exist/],
  ];
  for (const [file, reason] of cases)
    assert.throws(() => readRegularFile(file, CONFIG_FILE_MAX_BYTES, 'config file'), reason, file);
  // The same through the config loader: the FIFO as the config file itself.
  assert.throws(() => load(pipe), /is a FIFO/);
});

test("a JSON syntax error names the file, line and column, never the file's text", (t) => {
  const dir = tempDir(t);
  const cases = [
    `{\n  "signers": [ ${CANARY} ]\n}`,
    `{"a": "${CANARY}" "b": 1}`,
    `{"a": "${CANARY}`,
    `["${CANARY}\u0001"]`,
  ];
  const where = ['line 2, column 16', 'line 1, column 41', 'line 1, column 39', 'line 1, column 34'];
  cases.forEach((text, i) => {
    const file = path.join(dir, `bad-${i}.json`);
    writeFileSync(file, text);
    assert.throws(
      () => readJsonFile(file, CONFIG_FILE_MAX_BYTES, 'config file'),
      (err: Error) => {
        assert.ok(!err.message.includes(CANARY), `echoed: ${err.message}`);
        assert.equal(err.message, `config file ${file} is not valid JSON: syntax error at ${where[i]}`);
        return true;
      },
    );
    assert.throws(
      () => load(file),
      (err: Error) => !err.message.includes(CANARY) && /not valid JSON/.test(err.message),
    );
  });
});

test('keystores and network files: a FIFO or an oversized file is refused at config load, naming the field', (t) => {
  const dir = tempDir(t);
  assert.throws(
    () => load(keystoreConfig(dir, fifo(dir, 'keystore.json'))),
    /signers\.0\.config\.path: keystore .*keystore\.json is a FIFO \(named pipe\), not a regular file/,
  );
  const big = path.join(dir, 'big-keystore.json');
  writeFileSync(
    big,
    JSON.stringify({ ...makeKeystore(Buffer.alloc(32, 1), 'pass'), padding: 'x'.repeat(KEYSTORE_MAX_BYTES) }),
  );
  assert.throws(
    () => load(keystoreConfig(dir, big)),
    /keystore .*big-keystore\.json is \d+ bytes, over the 65536-byte limit/,
  );

  const networks = path.join(dir, 'networks');
  mkdirSync(networks);
  writeFileSync(path.join(networks, 'a.json'), JSON.stringify({ networks: [] }));
  fifo(networks, 'b.json');
  const config = path.join(dir, 'with-networks.json');
  writeFileSync(
    config,
    JSON.stringify({ networks: './networks', signers: [], relayers: [], notifications: [], plugins: [] }),
  );
  assert.throws(() => load(config), /networks: network file .*b\.json is a FIFO \(named pipe\), not a regular file/);
});

async function exitOf(child: ReturnType<typeof startService>, withinMs: number): Promise<number | null> {
  const exited = once(child.child, 'exit') as Promise<[number | null]>;
  const deadline = new Promise<'hung'>((r) => setTimeout(() => r('hung'), withinMs).unref());
  const outcome = await Promise.race([exited, deadline]);
  if (outcome === 'hung') {
    await child.killHard();
    assert.fail(`still running after ${withinMs} ms:\n${child.output()}`);
  }
  return outcome[0];
}

test('a real start with a keystore path that is a FIFO is refused at once with a clear line, before anything reads it', async (t) => {
  const dir = tempDir(t);
  const service = startService({
    API_KEY,
    CONFIG_PATH: keystoreConfig(dir, fifo(dir, 'keystore.json')),
    DATA_DIR: path.join(dir, 'data'),
    PLUGINS_DIR: dir,
  });
  t.after(() => service.killHard());
  assert.equal(await exitOf(service, 20_000), 1);
  assert.match(service.output(), /keystore .*keystore\.json is a FIFO \(named pipe\), not a regular file/);
});

test('a start waiting on a database that accepts but never answers stops on SIGTERM, with one line', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const connected = once(silent, 'connection');
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const port = (silent.address() as { port: number }).port;
  const dir = tempDir(t);
  const service = startService({
    API_KEY,
    DATABASE_URL: `postgres://relaybox@127.0.0.1:${port}/relaybox`,
    DATA_DIR: path.join(dir, 'data'),
    PLUGINS_DIR: dir,
  });
  t.after(() => service.killHard());
  await connected;
  // The start now waits for an answer that never comes.
  process.kill(service.child.pid!, 'SIGTERM');
  assert.equal(await exitOf(service, 10_000), 0);
  const lines = service
    .output()
    .split('\n')
    .filter((l) => l.includes('stop requested while starting'));
  assert.equal(lines.length, 1, service.output());
  assert.equal(JSON.parse(lines[0]!).signal, 'SIGTERM');
});

test('without STORAGE_ENCRYPTION_KEY the start logs one warning line', async (t) => {
  const dir = tempDir(t);
  const withKeystore = path.join(dir, 'ks.json');
  writeFileSync(withKeystore, JSON.stringify(makeKeystore(Buffer.alloc(32, 1), 'pass')));
  const ok = startService({
    API_KEY,
    CONFIG_PATH: keystoreConfig(dir, withKeystore),
    DATA_DIR: path.join(dir, 'data'),
    PLUGINS_DIR: dir,
  });
  t.after(() => ok.killHard());
  await ok.listening;
  const warnings = ok
    .output()
    .split('\n')
    .filter((l) => l.includes('STORAGE_ENCRYPTION_KEY not set'));
  assert.equal(warnings.length, 1, ok.output());
  assert.equal(JSON.parse(warnings[0]!).level, 40);
  assert.equal(await ok.stop(), 0);
});
