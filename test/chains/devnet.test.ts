// The embedded devnet: real anvil on a free or given port, automine or a block time, and no process left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { startDevnet } from '../../src/chains/evm/devnet.ts';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { eventually as waitFor } from '../support/eventually.ts';
// The devnet's process group: the supervisor leads it; anvil and the stdin watcher are in it.
import { liveGroupMembers } from '../support/process-group.ts';

async function rpc(url: string, method: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: string }).result;
}

const answers = (url: string) =>
  rpc(url, 'eth_chainId').then(
    () => true,
    () => false,
  );

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  if (!(await waitFor(check))) assert.fail(`${what} did not happen within 60 s`);
}

test('two devnets start on free ports, answer with the configured chain id, and stop leaving no process', async () => {
  const [a, b] = await Promise.all([startDevnet({ chainId: 11155111 }), startDevnet()]);
  try {
    assert.notEqual(a.port, b.port);
    assert.equal(await rpc(a.url, 'eth_chainId'), '0xaa36a7');
    assert.equal(await rpc(b.url, 'eth_chainId'), '0x7a69');
    if (process.platform === 'linux') assert.ok(liveGroupMembers(a.pid).includes('anvil'));
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  assert.equal(await answers(a.url), false);
  // The watcher subshell ends right after it has killed anvil, possibly a moment after the supervisor has: a leaked
  // process never ends, so this still fails then.
  if (process.platform === 'linux')
    await eventually(
      () => liveGroupMembers(a.pid).length === 0 && liveGroupMembers(b.pid).length === 0,
      'both devnet groups ending',
    );
  await a.stop(); // idempotent
});

test('without a block time every transaction gets a block (automine); with one, blocks come on their own', async () => {
  const timed = await startDevnet({ blockTimeMs: 100 });
  try {
    await eventually(
      async () => BigInt(await rpc(timed.url, 'eth_blockNumber')) >= 2n,
      'two blocks without transactions',
    );
    assert.equal(await rpc(timed.url, 'anvil_getAutomine'), false);
  } finally {
    await timed.stop();
  }
  const auto = await startDevnet();
  try {
    assert.equal(await rpc(auto.url, 'anvil_getAutomine'), true);
    assert.equal(await rpc(auto.url, 'eth_blockNumber'), '0x0');
  } finally {
    await auto.stop();
  }
});

test('a given port is used', async () => {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const devnet = await startDevnet({ port });
  try {
    assert.equal(devnet.url, `http://127.0.0.1:${port}`);
    assert.ok(await answers(devnet.url));
  } finally {
    await devnet.stop();
  }
});

test('a port in use makes the start fail with anvil\u2019s own words', async () => {
  const devnet = await startDevnet();
  try {
    await assert.rejects(
      startDevnet({ port: devnet.port, startTimeoutMs: 5_000 }),
      /anvil did not start[\s\S]*(in use|Address)/i,
    );
  } finally {
    await devnet.stop();
  }
});

test('a parent killed with SIGKILL leaves no anvil behind', { skip: process.platform === 'win32' }, async () => {
  const script = `import { startDevnet } from ${JSON.stringify(path.join(PROJECT_ROOT, 'src/chains/evm/devnet.ts'))};
const d = await startDevnet(); console.log(JSON.stringify({ url: d.url, pid: d.pid })); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const { url, pid } = JSON.parse(line.toString()) as { url: string; pid: number };
  assert.ok(await answers(url));
  child.kill('SIGKILL');
  await once(child, 'exit');
  await eventually(async () => !(await answers(url)), 'anvil exiting after its parent');
  if (process.platform === 'linux')
    await eventually(() => !liveGroupMembers(pid).includes('anvil'), 'the anvil process going away');
});
