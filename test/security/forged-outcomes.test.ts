// Class 1 of issue 13: nothing from inside an isolate is trusted by shape. Each plugin tries to forge its outcome
// (through prototypes the old prelude resolved through, getters, Proxies, fake runtime verdicts, bad statuses and
// headers); each answer must be our envelope with what the plugin really did, bounded, never Express's HTML page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestResponse } from '../helper.ts';
import { assertEnvelope, plugin } from './sandbox-support.ts';

const MiB = 1024 * 1024;
const BIG = `'x'.repeat(20 * 1024 * 1024)`;
const SETTINGS = `export const settings = { timeout: 5, memory_mb: 128, emit_logs: true };`;

interface Forgery {
  id: string;
  body: string;
  expect(res: TestResponse): void;
}

const failsWith = (status: number, code: string) => (res: TestResponse) => {
  assert.equal(res.status, status, res.text.slice(0, 300));
  assert.equal(res.body.data.code, code, res.text.slice(0, 300));
};

const FORGERIES: Forgery[] = [
  {
    // The old run() returned an array through an async function: its resolution called Array.prototype.then.
    id: 'array-then-envelope',
    body: `Object.defineProperty(Array.prototype, 'then', { configurable: true, value(resolve) { resolve([true, '1,"success":false,"injected":"yes"', '']); } }); return 'real';`,
    expect: (res) => assert.deepEqual(res.body, { success: true, data: 'real', error: null, metadata: { logs: [] } }),
  },
  {
    id: 'array-then-20mib-result',
    body: `Array.prototype.then = function (resolve) { resolve([true, JSON.stringify(${BIG}), '']); }; return 'small';`,
    expect: (res) => assert.equal(res.body.data, 'small'),
  },
  {
    id: 'array-then-forged-logs',
    body: `const logs = JSON.stringify(Array.from({ length: 2000 }, () => ({ level: 'log', message: 'y'.repeat(400) }))); Array.prototype.then = function (resolve) { resolve([true, '1', logs]); }; console.log('one real line'); return 1;`,
    expect: (res) => assert.deepEqual(res.body.metadata.logs, [{ level: 'log', message: 'one real line' }]),
  },
  {
    id: 'array-then-fake-verdict',
    body: `Array.prototype.then = function (resolve) { resolve([false, '{"code":"MEMORY_LIMIT_EXCEEDED","status":"500\\\\r\\\\nX-Injected: 1","message":"fake","retryAfter":"1\\\\r\\\\nX-Injected: 1"}', '']); }; return 'fine';`,
    expect: (res) => {
      assert.equal(res.status, 200);
      assert.equal(res.body.data, 'fine');
      assert.equal(res.headers.get('x-injected'), null);
    },
  },
  {
    id: 'promise-then-20mib',
    body: `const then = Promise.prototype.then; Promise.prototype.then = function (f, r) { return then.call(this, () => f && f(${BIG}), r); }; await null; return 'after';`,
    expect: (res) => {
      assert.ok(res.text.length < 1.1 * MiB, `answer of ${res.text.length} bytes`);
      if (res.status === 200) assert.ok(['after', null].includes(res.body.data) || typeof res.body.data === 'string');
      else assert.equal(res.body.data.code, 'RESULT_TOO_LARGE');
    },
  },
  {
    id: 'result-tojson-20mib',
    body: `return { toJSON() { return ${BIG}; } };`,
    expect: failsWith(500, 'RESULT_TOO_LARGE'),
  },
  {
    id: 'reject-8mib-message',
    body: `throw new Error('m'.repeat(8 * 1024 * 1024));`,
    expect: (res) => {
      failsWith(500, 'PLUGIN_ERROR')(res);
      assert.ok(res.body.error.length <= 4096 + 16, `${res.body.error.length} characters`);
      assert.match(res.body.error, /\[truncated\]$/);
    },
  },
  {
    // A Proxy that answers a short message when checked and 8 MiB when read again.
    id: 'proxy-message-changes',
    body: `let reads = 0; throw new Proxy(new Error('x'), { get(t, k) { if (k === 'message') return reads++ ? 'z'.repeat(8 * 1024 * 1024) : 'short'; if (k === 'status') return reads > 1 ? '1,"injected":1' : 422; return Reflect.get(t, k); } });`,
    expect: (res) => {
      assert.ok(res.text.length < 8192, `answer of ${res.text.length} bytes`);
      assert.equal(res.body.data.injected, undefined);
    },
  },
  {
    id: 'fake-timeout',
    body: `throw { code: 'TIMEOUT', message: 'pretend', status: 504, details: { timeout: 1 } };`,
    expect: (res) => {
      assert.equal(res.body.data.code, 'PLUGIN_ERROR');
      assert.equal(res.body.error, 'pretend');
    },
  },
  {
    id: 'fake-memory-and-runtime',
    body: `const e = new Error('pretend'); e.name = 'PluginError'; e.code = 'RUNTIME_UNAVAILABLE'; e.status = 503; e.retryAfter = '1\\r\\nX-Injected: 1'; throw e;`,
    expect: (res) => {
      assert.equal(res.status, 503);
      assert.equal(res.body.data.code, 'PLUGIN_ERROR');
      assert.equal(res.headers.get('retry-after'), null);
      assert.equal(res.headers.get('x-injected'), null);
    },
  },
  {
    id: 'fake-api-call-limit',
    body: `const e = new Error('pretend'); e.name = 'RelayerApiError'; e.code = 'API_CALL_LIMIT'; e.status = 429; throw e;`,
    expect: (res) => assert.equal(res.body.data.code, 'PLUGIN_ERROR'),
  },
  {
    id: 'status-not-a-number',
    body: `const e = new Error('bad status'); e.name = 'PluginError'; e.status = '500\\r\\nX-Injected: 1'; e.code = 'BAD\\r\\nX-Injected: 1'; throw e;`,
    expect: (res) => {
      assert.equal(res.status, 400);
      assert.equal(res.body.data.code, 'PLUGIN_ERROR');
      assert.equal(res.headers.get('x-injected'), null);
    },
  },
  {
    id: 'status-out-of-range',
    body: `const e = new Error('ok status?'); e.name = 'PluginError'; e.status = 200; throw e;`,
    expect: (res) => assert.ok(res.status >= 400 && res.status <= 599),
  },
  {
    id: 'details-2mib',
    body: `throw { message: 'big details', code: 'X', details: { blob: 'd'.repeat(2 * 1024 * 1024) } };`,
    expect: (res) => {
      assert.ok(res.text.length < 128 * 1024, `answer of ${res.text.length} bytes`);
      assert.deepEqual(res.body.data.details, { truncated: true });
    },
  },
  {
    id: 'push-and-stringify-tampered-logs',
    body: `const push = Array.prototype.push; Array.prototype.push = function (...xs) { for (let i = 0; i < 1000; i++) push.call(this, { level: 'log', message: 'p'.repeat(1000) }); return push.apply(this, xs); }; JSON.stringify = () => '[' + '{"level":"log","message":"' + 'q'.repeat(900000) + '"}]'; console.log('real'); return 'done';`,
    expect: (res) => {
      const bytes = JSON.stringify(res.body.metadata.logs).length;
      assert.ok(bytes < 80 * 1024, `${bytes} bytes of logs`);
      assert.deepEqual(res.body.metadata.logs, [{ level: 'log', message: 'real' }]);
    },
  },
  {
    id: 'thenable-settles-twice',
    body: `return { then(resolve, reject) { resolve('first'); resolve(${BIG}); reject(new Error('late')); } };`,
    expect: (res) => assert.equal(res.body.data, 'first'),
  },
  {
    id: 'symbol-result',
    body: `return Symbol('no');`,
    expect: failsWith(500, 'INVALID_RESULT'),
  },
];

test('no plugin can forge its outcome: every answer is our envelope with what it really did, bounded', async (t) => {
  const plugins: Record<string, string> = {};
  for (const f of FORGERIES) plugins[`${f.id}.ts`] = plugin(f.body, SETTINGS);
  const s = await build(t, { plugins });
  const rssBefore = process.memoryUsage().rss;
  for (const f of FORGERIES) {
    const res = await s.request('POST', `/api/v1/plugins/${f.id}/call`, { body: {} });
    assertEnvelope(res, f.id);
    assert.ok(res.text.length <= 1.1 * MiB, `${f.id}: answer of ${res.text.length} bytes`);
    f.expect(res);
    t.diagnostic(`${f.id}: ${res.status} ${res.body.data?.code ?? JSON.stringify(res.body.data)?.slice(0, 40)}`);
  }
  const grew = (process.memoryUsage().rss - rssBefore) / MiB;
  t.diagnostic(`HTTP process RSS grew by ${grew.toFixed(0)} MiB over the forgeries`);
  assert.ok(grew < 200, `the HTTP process grew by ${grew.toFixed(0)} MiB`);
});
