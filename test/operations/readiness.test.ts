// GET /api/v1/ready answers for the store and the runtime; GET /api/v1/health stays a cheap liveness answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { readinessHandler } from '../../src/http/readiness.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { build, request } from '../helper.ts';

test('ready answers 200 without a key when the store and the runtime are up', async (t) => {
  const s = await build(t);
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { success: true, data: { status: 'ready', components: { store: 'up', runtime: 'up' } }, error: null });
});

test('ready answers 503 naming the store when the store does not answer, while health still answers 200', async (t) => {
  const s = await build(t);
  s.app.db.close();
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 503);
  assert.deepEqual(res.body, { success: false, data: null, error: 'not ready: store is down', message: 'Service Unavailable' });
  assert.equal(res.headers.get('retry-after'), '5');
  const health = await s.request('GET', '/api/v1/health', { auth: false });
  assert.equal(health.status, 200);
  assert.equal(health.text, 'OK');
});

test('ready names every component that is down, including one whose probe throws or rejects', async (t) => {
  const app = express();
  let runtimeUp = false;
  app.get('/ready', readinessHandler([
    { name: 'store', check: () => true },
    { name: 'runtime', check: () => runtimeUp },
    { name: 'cache', check: async () => { throw new Error('boom'); } },
  ]));
  app.use(errorHandler(createLogger('silent')));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const down = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(down.status, 503);
  assert.equal(down.body.error, 'not ready: runtime, cache are down');
  runtimeUp = true;
  const one = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(one.body.error, 'not ready: cache is down');
});

test('ready follows the runtime process: down while it is not running', async (t) => {
  const s = await build(t);
  await s.app.runtime.close();
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 503);
  assert.equal(res.body.error, 'not ready: runtime is down');
});
