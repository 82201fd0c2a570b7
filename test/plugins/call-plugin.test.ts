import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build } from '../helper.ts';

const ECHO = `export async function handler(context) { return { params: context.params, method: context.method, route: context.route, query: context.query, hasRequestId: typeof context.requestId === 'string' }; }`;

test('a dropped plugin answers its result in the success envelope', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const res = await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { hello: 'world', n: 1 } } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, {
    success: true,
    data: { params: { hello: 'world', n: 1 }, method: 'POST', route: '', query: {}, hasRequestId: true },
    error: null,
  });
});

test('the context carries params, lower-cased header arrays, route suffix, query arrays, config and the request id', async (t) => {
  const plugin = `export const settings = { config: { greeting: 'hi' } };
    export async function handler(c) { return { params: c.params, headers: c.headers, route: c.route, query: c.query, config: c.config, requestId: c.requestId, method: c.method }; }`;
  const s = await build(t, { plugins: { 'ctx.ts': plugin } });
  const res = await s.request('POST', '/api/v1/plugins/ctx/call/orders/42?a=1&a=2&b=x', {
    body: { anything: true },
    headers: { 'X-Custom': 'Value', 'x-request-id': 'req-42' },
  });
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.deepEqual(data.params, { anything: true }, 'without a params key the whole body is the params');
  assert.deepEqual(data.headers['x-custom'], ['Value']);
  assert.equal(data.headers.authorization, undefined, 'the caller credentials never reach a plugin');
  assert.equal(data.route, '/orders/42');
  assert.deepEqual(data.query, { a: ['1', '2'], b: ['x'] });
  assert.deepEqual(data.config, { greeting: 'hi' });
  assert.equal(data.requestId, 'req-42');
  assert.equal(data.method, 'POST');
});

test('the legacy handler(api, params) form is called with the api and the params', async (t) => {
  const plugin = `export async function handler(api, params) { return { hasUseRelayer: typeof api.useRelayer === 'function', params }; }`;
  const s = await build(t, { plugins: { 'legacy.js': plugin } });
  const res = await s.request('POST', '/api/v1/plugins/legacy/call', { body: { params: [1, 2] } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, { hasUseRelayer: true, params: [1, 2] });
});

test('a TypeScript plugin importing @openzeppelin/relayer-sdk and a relative module runs unchanged', async (t) => {
  const s = await build(t, {
    plugins: {
      'sdk/index.ts': `import { Speed, pluginError, type PluginContext } from '@openzeppelin/relayer-sdk';
        import { double } from './lib.ts';
        interface P { n: number }
        export async function handler({ params }: PluginContext<P>) {
          if (params.n < 0) throw pluginError('negative', { code: 'NEG', status: 422 });
          return { speed: Speed.FAST, doubled: double(params.n) };
        }`,
      'sdk/lib.ts': `export const double = (n: number): number => n * 2;`,
    },
  });
  const ok = await s.request('POST', '/api/v1/plugins/sdk/call', { body: { params: { n: 21 } } });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body.data, { speed: 'fast', doubled: 42 });
  const bad = await s.request('POST', '/api/v1/plugins/sdk/call', { body: { params: { n: -1 } } });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body, { success: false, data: { code: 'NEG', details: {} }, error: 'negative' });
});

test('logs appear in metadata only with emit_logs, formatted like the console, in order', async (t) => {
  const body = `console.log('plain', 1, { a: 1 }); console.info('info'); console.warn('careful'); console.error(new Error('boom')); console.debug([1, 'x']); return 'ok';`;
  const s = await build(t, {
    plugins: {
      'quiet.ts': `export async function handler() { ${body} }`,
      'loud.ts': `export const settings = { emit_logs: true }; export async function handler() { ${body} }`,
    },
  });
  const quiet = await s.request('POST', '/api/v1/plugins/quiet/call', { body: {} });
  assert.deepEqual(quiet.body, { success: true, data: 'ok', error: null });
  const loud = await s.request('POST', '/api/v1/plugins/loud/call', { body: {} });
  assert.deepEqual(loud.body.metadata, {
    logs: [
      { level: 'log', message: 'plain 1 {"a":1}' },
      { level: 'info', message: 'info' },
      { level: 'warn', message: 'careful' },
      { level: 'error', message: 'boom' },
      { level: 'debug', message: '[1,"x"]' },
    ],
  });
});

test('config file entries override the settings exported by the plugin file', async (t) => {
  const s = await build(t, {
    plugins: {
      'cfg.ts': `export const settings = { emit_logs: false, config: { from: 'file' } }; export async function handler(c) { console.log('x'); return c.config; }`,
    },
    config: { plugins: [{ id: 'cfg', emit_logs: true, config: { from: 'config' } }] },
  });
  const res = await s.request('POST', '/api/v1/plugins/cfg/call', { body: {} });
  assert.deepEqual(res.body, {
    success: true,
    data: { from: 'config' },
    error: null,
    metadata: { logs: [{ level: 'log', message: 'x' }] },
  });
});

test('GET invocation answers 405 unless the plugin allows it', async (t) => {
  const s = await build(t, {
    plugins: {
      'closed.ts': `export async function handler() { return 1; }`,
      'open.ts': `export const settings = { allow_get_invocation: true }; export async function handler(c) { return { method: c.method, params: c.params }; }`,
    },
  });
  const closed = await s.request('GET', '/api/v1/plugins/closed/call');
  assert.equal(closed.status, 405);
  assert.equal(closed.body.success, false);
  const open = await s.request('GET', '/api/v1/plugins/open/call?x=1');
  assert.equal(open.status, 200, open.text);
  assert.deepEqual(open.body.data, { method: 'GET', params: {} });
});

test('an unknown or malformed plugin id answers 404 with the spec text', async (t) => {
  const s = await build(t, { runtime: true });
  for (const id of ['missing', 'bad.id', 'x'.repeat(65)]) {
    const res = await s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { success: false, data: null, error: `Plugin with ID ${id} not found` });
  }
});

test('plugins are listed with their settings, state and source path', async (t) => {
  const s = await build(t, {
    plugins: {
      'good.ts': `export const settings = { timeout: 2, config: { secret: 'x' } }; export async function handler() { return 1; }`,
      'broken.ts': readFileSync(new URL('../fixtures/plugins/syntax-error.ts.txt', import.meta.url), 'utf8'),
    },
  });
  const list = await s.request('GET', '/api/v1/plugins');
  assert.equal(list.status, 200);
  const byId = Object.fromEntries(list.body.data.map((p: { id: string }) => [p.id, p]));
  assert.equal(byId.good.state, 'ready');
  assert.equal(byId.good.timeout, 2);
  assert.equal(byId.good.memory_mb, 64);
  assert.deepEqual(byId.good.config_keys, ['secret']);
  // The content hash lets an operator see that every instance serves the same code.
  assert.match(byId.good.content_hash, /^[0-9a-f]{32}$/);
  assert.equal(byId.good.path, 'good.ts', 'relative to the plugins directory');
  assert.equal(byId.broken.state, 'error');
  assert.equal(byId.broken.error.code, 'COMPILE_ERROR');
  assert.equal(byId.broken.content_hash, null);
  const one = await s.request('GET', '/api/v1/plugins/good');
  assert.equal(one.body.data.id, 'good');
  const none = await s.request('GET', '/api/v1/plugins/nope');
  assert.equal(none.status, 404);
});

test('the shipped example plugins load and the echo and validation examples answer as documented', async (t) => {
  const dir = new URL('../../plugins/', import.meta.url);
  const plugins = Object.fromEntries(
    ['echo.ts', 'send-transaction.ts', 'kv-counter.ts', 'validation-error.ts'].map((f) => [
      f,
      readFileSync(new URL(f, dir), 'utf8'),
    ]),
  );
  const s = await build(t, { plugins });
  const list = await s.request('GET', '/api/v1/plugins');
  for (const p of list.body.data) assert.equal(p.state, 'ready', JSON.stringify(p));
  const echo = await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { a: 1 } } });
  assert.deepEqual(echo.body.data.params, { a: 1 });
  const invalid = await s.request('POST', '/api/v1/plugins/validation-error/call', {
    body: { params: { email: 'nope' } },
  });
  assert.equal(invalid.status, 422);
  assert.deepEqual(invalid.body, {
    success: false,
    data: { code: 'VALIDATION_FAILED', details: { field: 'email', reason: 'must be an e-mail address' } },
    error: 'Validation failed',
    metadata: { logs: [{ level: 'warn', message: 'validating input' }] },
  });
  const c1 = await s.request('POST', '/api/v1/plugins/kv-counter/call', { body: {} });
  const c2 = await s.request('POST', '/api/v1/plugins/kv-counter/call', { body: {} });
  assert.equal(c2.body.data.count, c1.body.data.count + 1);
});
