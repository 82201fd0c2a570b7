import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { fixture } from '../fixtures/plugin-fixtures.ts';

const PLUGINS: Record<string, string> = {
  'pe422.ts': `import { pluginError } from '@openzeppelin/relayer-sdk';
    export async function handler() { throw pluginError('Validation failed', { code: 'VALIDATION_FAILED', status: 422, details: { field: 'x' } }); }`,
  'pe-nostatus.ts': `import { pluginError } from '@openzeppelin/relayer-sdk';
    export async function handler() { throw pluginError('no status', { code: 'NOPE' }); }`,
  'pe-badstatus.ts': `import { pluginError } from '@openzeppelin/relayer-sdk';
    export async function handler() { throw pluginError('bad status', { status: 200 }); }`,
  'plain-error.ts': `export async function handler() { throw new Error('it broke'); }`,
  'type-error.ts': fixture('type-error.ts'),
  'ref-error.ts': `export async function handler() { return notDefined + 1; }`,
  'syntax-runtime.ts': `export async function handler() { return JSON.parse('{oops'); }`,
  'string-thrown.ts': `export async function handler() { throw 'just a string'; }`,
  'object-thrown.ts': `export async function handler() { throw { message: 'plain object', code: 'OBJ', details: { a: 1 } }; }`,
  'rejected.ts': `export function handler() { return Promise.reject(new RangeError('rejected')); }`,
  'blank-with-log.ts': `export const settings = { emit_logs: true };
    export async function handler() { console.error('the real reason'); console.log('noise'); throw new Error(''); }`,
  'blank.ts': `export async function handler() { throw new Error('   '); }`,
  'undefined-result.ts': `export async function handler() { return undefined; }`,
  'bigint-result.ts': `export async function handler() { return { wei: 1000000000000000000001n, list: [undefined, 2n] }; }`,
  'function-result.ts': `export async function handler() { return { f() {} }; }`,
  'cycle-result.ts': `export async function handler() { const a: any = {}; a.self = a; return a; }`,
  'proto-result.ts': `export async function handler() { return JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'); }`,
  'huge-result.ts': fixture('huge-result.ts'),
  'broken.ts': fixture('syntax-error.ts.txt'),
  'node-builtin.ts': fixture('node-builtin.ts'),
  'top-level-throw.ts': fixture('top-level-throw.ts'),
  'no-handler.ts': `export const x = 1;`,
};

let server: TestServer;
test.before(async () => {
  server = await build(undefined, { plugins: PLUGINS });
});
test.after(() => server.close());

const call = (id: string) => server.request('POST', `/api/v1/plugins/${id}/call`, { body: { params: {} } });

function assertFailure(res: { status: number; body: any }, status: number, code: string, error?: string | RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.data.code, code);
  assert.equal(typeof res.body.data.details, 'object');
  if (typeof error === 'string') assert.equal(res.body.error, error);
  else if (error) assert.match(res.body.error, error);
}

test('a pluginError answers its own status, code and details', async () => {
  const res = await call('pe422');
  assert.equal(res.status, 422);
  assert.deepEqual(res.body, {
    success: false,
    data: { code: 'VALIDATION_FAILED', details: { field: 'x' } },
    error: 'Validation failed',
  });
});

test('a pluginError without a valid status answers 400', async () => {
  assertFailure(await call('pe-nostatus'), 400, 'NOPE', 'no status');
  assertFailure(await call('pe-badstatus'), 400, 'PLUGIN_ERROR', 'bad status');
});

test('anything else thrown answers 500 with a code derived from its kind', async () => {
  assertFailure(await call('plain-error'), 500, 'PLUGIN_ERROR', 'it broke');
  assertFailure(await call('type-error'), 500, 'TYPE_ERROR', /undefined/);
  assertFailure(await call('ref-error'), 500, 'REFERENCE_ERROR', /notDefined/);
  assertFailure(await call('syntax-runtime'), 500, 'SYNTAX_ERROR');
  assertFailure(await call('string-thrown'), 500, 'PLUGIN_ERROR', 'just a string');
  const obj = await call('object-thrown');
  assertFailure(obj, 500, 'OBJ', 'plain object');
  assert.deepEqual(obj.body.data.details, { a: 1 });
  assertFailure(await call('rejected'), 500, 'PLUGIN_ERROR', 'rejected');
});

test('a blank message falls back to the last error log, then to "Plugin execution failed"', async () => {
  const withLog = await call('blank-with-log');
  assertFailure(withLog, 500, 'PLUGIN_ERROR', 'the real reason');
  assert.deepEqual(withLog.body.metadata.logs, [
    { level: 'error', message: 'the real reason' },
    { level: 'log', message: 'noise' },
  ]);
  assertFailure(await call('blank'), 500, 'PLUGIN_ERROR', 'Plugin execution failed');
});

test('results are sanitized to JSON: undefined becomes null, BigInt a decimal string', async () => {
  assert.deepEqual((await call('undefined-result')).body, { success: true, data: null, error: null });
  assert.deepEqual((await call('bigint-result')).body.data, { wei: '1000000000000000000001', list: [null, '2'] });
});

test('a function or a cycle in the result answers 500 INVALID_RESULT', async () => {
  assertFailure(await call('function-result'), 500, 'INVALID_RESULT');
  assertFailure(await call('cycle-result'), 500, 'INVALID_RESULT');
});

test('a __proto__ key in a result stays data and never touches a host prototype', async () => {
  const res = await call('proto-result');
  assert.equal(res.status, 200);
  assert.match(res.text, /"__proto__":\{"polluted":true\}/);
  assert.equal(({} as any).polluted, undefined);
});

test('a result above the size cap answers 500 RESULT_TOO_LARGE', async () => {
  assertFailure(await call('huge-result'), 500, 'RESULT_TOO_LARGE');
});

test('a plugin that fails to build stays listed and answers COMPILE_ERROR with file and line', async () => {
  const res = await call('broken');
  assertFailure(res, 500, 'COMPILE_ERROR', /broken\.ts:3:\d+: /);
  const builtin = await call('node-builtin');
  assertFailure(builtin, 500, 'COMPILE_ERROR', /node:fs.*built-in/);
  const listed = await server.request('GET', '/api/v1/plugins/broken');
  assert.equal(listed.body.data.state, 'error');
});

test('a plugin that throws while loading or exports no handler answers LOAD_ERROR', async () => {
  assertFailure(await call('top-level-throw'), 500, 'LOAD_ERROR', /missing secret/);
  assertFailure(await call('no-handler'), 500, 'LOAD_ERROR', /handler/);
});
