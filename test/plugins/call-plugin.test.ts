import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const ECHO = `export async function handler(context) { return { params: context.params, method: context.method, route: context.route, query: context.query, hasRequestId: typeof context.requestId === 'string' }; }`;

test('a dropped plugin answers its result in the success envelope', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const res = await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { hello: 'world', n: 1 } } });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, { success: true, data: { params: { hello: 'world', n: 1 }, method: 'POST', route: '', query: {}, hasRequestId: true }, error: null });
});
