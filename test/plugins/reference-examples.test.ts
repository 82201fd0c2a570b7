// Our own equivalents of the reference product's example plugins (v1.8.0: plugins/examples/example.ts,
// example-rpc.ts, example-deprecated.ts, kv-storage.ts, and a timer fixture of its test suite), written from their
// documented behaviour, run unchanged in the sandbox: same imports (the real @openzeppelin/relayer-sdk, the legacy
// "../lib/plugin"), same handler forms, same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { EVM_KEY, TO } from '../transactions/fixtures.ts';
import { startAnvil } from '../support/anvil.ts';

// example.ts: sends a transaction with Speed.FAST and waits for it to be mined.
const EXAMPLE = `import { PluginContext, Speed } from '@openzeppelin/relayer-sdk';
type Params = { destinationAddress: string; amount?: number };
export async function handler({ api, params }: PluginContext): Promise<string> {
  console.info('Plugin started with new handler pattern...');
  const relayer = api.useRelayer('sepolia-example');
  const result = await relayer.sendTransaction({ to: (params as Params).destinationAddress, value: (params as Params).amount || 1, data: '0x', gas_limit: 21000, speed: Speed.FAST });
  console.info(\`Transaction submitted: \${result.id}\`);
  await result.wait();
  console.info('Transaction confirmed!');
  return \`Transaction \${result.id} completed successfully!\`;
}`;

// example-rpc.ts: a JSON-RPC call through the relayer.
const EXAMPLE_RPC = `import { JsonRpcResponseNetworkRpcResult, PluginContext } from '@openzeppelin/relayer-sdk';
export async function handler(context: PluginContext): Promise<JsonRpcResponseNetworkRpcResult> {
  const relayer = context.api.useRelayer('sepolia-example');
  return relayer.rpc({ method: 'eth_blockNumber', id: 1, jsonrpc: '2.0', params: [] });
}`;

// example-deprecated.ts: the legacy runPlugin form, importing the reference's "../lib/plugin".
const DEPRECATED = `import { PluginAPI, runPlugin } from '../lib/plugin';
import { Speed } from '@openzeppelin/relayer-sdk';
type Params = { destinationAddress: string };
async function example(api: PluginAPI, params: Params): Promise<string> {
  console.info('Plugin started...');
  const relayer = api.useRelayer('sepolia-example');
  const result = await relayer.sendTransaction({ to: params.destinationAddress, value: 1, data: '0x', gas_limit: 21000, speed: Speed.FAST });
  return 'sent ' + (typeof result.id) + ' ' + (typeof result.wait);
}
runPlugin(example);`;

// The legacy two-parameter handler: no kv, (api, params).
const LEGACY_HANDLER = `export async function handler(api, params) { return { hasRelayer: typeof api.useRelayer, params, transactionWait: typeof api.transactionWait }; }`;

// kv-storage.ts: the documented demo flow and single actions.
const KV_STORAGE = `import { PluginContext } from '../lib/plugin';
export async function handler({ kv, params }: PluginContext) {
  const action = params?.action ?? 'demo';
  switch (action) {
    case 'set': return { ok: await kv.set(params.key, params.value, params.ttlSec ? { ttlSec: params.ttlSec } : undefined) };
    case 'get': return { value: await kv.get(params.key) };
    case 'exists': return { exists: await kv.exists(params.key) };
    case 'del': return { deleted: await kv.del(params.key) };
    case 'scan': return { keys: await kv.listKeys(params.pattern ?? '*', 500) };
    case 'clear': return { deleted: await kv.clear() };
    case 'withLock': return { result: await kv.withLock(params.key, async () => { await kv.set('example:last-lock:' + params.key, { stamp: 1 }); return { ok: true }; }, { ttlSec: 30, onBusy: params.onBusy === 'skip' ? 'skip' : 'throw' }) };
    default: {
      await kv.set('example:greeting', { text: 'hello' });
      const greeting = await kv.get('example:greeting');
      await kv.set('example:temp', { expires: true }, { ttlSec: 5 });
      const existedBefore = await kv.exists('example:to-delete');
      await kv.set('example:to-delete', { remove: true });
      const existedAfterSet = await kv.exists('example:to-delete');
      const deleted = await kv.del('example:to-delete');
      const scanned = await kv.listKeys('example:*');
      const lockResult = await kv.withLock('example:lock', async () => {
        const next = ((await kv.get('example:counter')) ?? 0) + 1;
        await kv.set('example:counter', next);
        return next;
      }, { ttlSec: 10, onBusy: 'throw' });
      return { greeting, ttlKeyWritten: true, existedBefore, existedAfterSet, deleted, scanned, lockResult };
    }
  }
}`;

// The reference test suite's timer fixture: a plugin that waits on a timer before answering.
const TIMER_FIXTURE = `export async function handler({ params }) { await new Promise((resolve) => setTimeout(resolve, 10)); return { processed: params }; }`;

// Every export of the real SDK exists with its real value.
const SDK_VALUES = `import * as sdk from '@openzeppelin/relayer-sdk';
import { TransactionStatus, Speed, pluginError, PluginError, RelayersApi, Configuration } from '@openzeppelin/relayer-sdk';
export async function handler() {
  const e = pluginError('nope', { code: 'X', status: 418 });
  return { names: Object.keys(sdk).length, TransactionStatus, Speed, isPluginError: e instanceof PluginError, status: e.status,
    api: typeof RelayersApi, basePath: new Configuration({ basePath: 'http://x' }).basePath };
}`;

test('example.ts: sendTransaction(...).wait() resolves on the real lifecycle', async (t) => {
  const s = await build(t, { devnet: true, plugins: { 'example.ts': EXAMPLE } });
  const res = await s.request('POST', '/api/v1/plugins/example/call', { body: { params: { destinationAddress: TO } } });
  assert.equal(res.status, 200, res.text);
  assert.match(res.body.data, /^Transaction [0-9a-f-]{36} completed successfully!$/);
});

test('example.ts: a wait that outlives its timeout answers 504 TIMEOUT, as the reference', async (t) => {
  // A chain that mines a block every ten minutes: the transaction is submitted and stays there.
  const anvil = await startAnvil({ blockTimeMs: 600_000 });
  t.after(() => anvil.stop());
  const plugin = EXAMPLE.replace("api.useRelayer('sepolia-example')", "api.useRelayer('slow')").replace(
    'await result.wait();',
    'await result.wait({ interval: 100, timeout: 300 });',
  );
  const s = await build(t, {
    plugins: { 'example.ts': plugin },
    config: {
      networks: [anvil.network('slow-chain')],
      signers: [{ id: 'key', type: 'local', development: true, private_key: EVM_KEY }],
      relayers: [{ id: 'slow', name: 'slow', network: 'slow-chain', signer_id: 'key' }],
    } as never,
  });
  const res = await s.request('POST', '/api/v1/plugins/example/call', { body: { params: { destinationAddress: TO } } });
  assert.equal(res.status, 504, res.text);
  assert.equal(res.body.data.code, 'TIMEOUT');
  assert.match(res.body.error, /^Transaction [0-9a-f-]{36} timed out after 300ms$/);
});

test("example-rpc.ts: relayer.rpc answers the node's JSON-RPC result", async (t) => {
  const s = await build(t, { devnet: true, plugins: { 'example-rpc.ts': EXAMPLE_RPC } });
  const res = await s.request('POST', '/api/v1/plugins/example-rpc/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.jsonrpc, '2.0');
  assert.match(res.body.data.result, /^0x[0-9a-f]+$/);
});

test('example-deprecated.ts: the runPlugin form builds from "../lib/plugin" and runs (api, params), with the deprecation warning', async (t) => {
  const s = await build(t, {
    devnet: true,
    plugins: { 'examples/example-deprecated.ts': DEPRECATED },
    config: { plugins: [{ id: 'deprecated', path: 'examples/example-deprecated.ts', emit_logs: true }] } as never,
  });
  const res = await s.request('POST', '/api/v1/plugins/deprecated/call', {
    body: { params: { destinationAddress: TO } },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data, 'sent string function');
  assert.deepEqual(
    res.body.metadata.logs.map((l: { level: string }) => l.level),
    ['warn', 'info'],
  );
  assert.match(res.body.metadata.logs[0].message, /^\[DEPRECATED\]/);
});

test('the legacy handler(api, params) form gets the api and the params', async (t) => {
  const s = await build(t, { plugins: { 'legacy.ts': LEGACY_HANDLER } });
  const res = await s.request('POST', '/api/v1/plugins/legacy/call', { body: { params: { a: 1 } } });
  assert.deepEqual(res.body.data, { hasRelayer: 'function', params: { a: 1 }, transactionWait: 'function' });
});

test('kv-storage.ts: the demo flow and the single actions answer as documented', async (t) => {
  const s = await build(t, {
    plugins: { 'examples/kv-storage.ts': KV_STORAGE },
    config: { plugins: [{ id: 'kv-storage', path: 'examples/kv-storage.ts' }] } as never,
  });
  const call = (params: unknown) => s.request('POST', '/api/v1/plugins/kv-storage/call', { body: { params } });
  const demo = await call({});
  assert.equal(demo.status, 200, demo.text);
  assert.deepEqual(demo.body.data, {
    greeting: { text: 'hello' },
    ttlKeyWritten: true,
    existedBefore: false,
    existedAfterSet: true,
    deleted: true,
    scanned: demo.body.data.scanned,
    lockResult: 1,
  });
  assert.deepEqual([...demo.body.data.scanned].sort(), ['example:greeting', 'example:temp']);
  assert.equal((await call({})).body.data.lockResult, 2, 'the counter survives between calls');
  assert.deepEqual((await call({ action: 'set', key: 'k1', value: [1, 2] })).body.data, { ok: true });
  assert.deepEqual((await call({ action: 'get', key: 'k1' })).body.data, { value: [1, 2] });
  assert.deepEqual((await call({ action: 'exists', key: 'k1' })).body.data, { exists: true });
  assert.deepEqual((await call({ action: 'withLock', key: 'k1' })).body.data, { result: { ok: true } });
  assert.deepEqual((await call({ action: 'del', key: 'k1' })).body.data, { deleted: true });
  assert.ok((await call({ action: 'clear' })).body.data.deleted >= 3);
  assert.deepEqual((await call({ action: 'scan' })).body.data, { keys: [] });
});

test('the timer fixture waits on setTimeout and answers', async (t) => {
  const s = await build(t, { plugins: { 'timer.ts': TIMER_FIXTURE } });
  const res = await s.request('POST', '/api/v1/plugins/timer/call', { body: { params: { n: 1 } } });
  assert.deepEqual(res.body.data, { processed: { n: 1 } });
});

test('every export of the real @openzeppelin/relayer-sdk exists with its real value', async (t) => {
  const { createRequire } = await import('node:module');
  const real = createRequire(import.meta.url)('@openzeppelin/relayer-sdk') as Record<string, unknown>;
  const s = await build(t, { plugins: { 'sdk.ts': SDK_VALUES } });
  const res = await s.request('POST', '/api/v1/plugins/sdk/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, {
    names: Object.keys(real).length,
    TransactionStatus: real.TransactionStatus,
    Speed: real.Speed,
    isPluginError: true,
    status: 418,
    api: 'function',
    basePath: 'http://x',
  });
  assert.equal(res.body.data.names, 78);
});
