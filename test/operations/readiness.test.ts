// GET /api/v1/ready answers the reference's bare readiness shape for the store and the runtime; GET /api/v1/health
// stays a cheap liveness answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { readinessHandler } from '../../src/http/readiness.ts';
import type { SystemHealth } from '../../src/http/system-health.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { readFileSync } from 'node:fs';
import { build, request } from '../helper.ts';

// Only the example's devnet relayer: the public testnets of the others may not answer here (readiness would say so).
const devnetOnly = {
  relayers: JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')).relayers.filter(
    (r: { network: string }) => r.network === 'devnet',
  ),
};

test('ready answers 200 without a key when the store and the runtime are up', async (t) => {
  const s = await build(t, { devnet: true, runtime: true, config: devnetOnly });
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 200);
  const { timestamp, components, ...rest } = res.body;
  assert.deepEqual(rest, { ready: true, status: 'healthy' });
  assert.ok(!Number.isNaN(Date.parse(timestamp)), timestamp);
  const { system, ...others } = components;
  assert.deepEqual(others, {
    redis: {
      status: 'healthy',
      enabled: false,
      primary_pool: { connected: false, available: 0, max_size: 0 },
      reader_pool: { connected: false, available: 0, max_size: 0 },
    },
    queue: { status: 'healthy' },
    plugins: { status: 'healthy', enabled: true },
    store: { status: 'healthy' },
    runtime: { status: 'healthy' },
    rpc: { status: 'healthy' },
  });
  assert.equal(system.status, 'healthy');
  assert.ok(system.fd_count > 0 && system.fd_limit >= system.fd_count, JSON.stringify(system));
  assert.equal(system.fd_usage_percent, Math.floor((system.fd_count / system.fd_limit) * 100));
  assert.equal(typeof system.close_wait_count, 'number');
});

test('ready answers 503 naming the store when the store does not answer, while health still answers 200', async (t) => {
  const s = await build(t, { runtime: true });
  s.app.db.close();
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 503);
  assert.equal(res.body.ready, false);
  assert.equal(res.body.status, 'unhealthy');
  assert.equal(res.body.reason, 'store is down');
  assert.deepEqual(res.body.components.queue, { status: 'unhealthy', error: 'store is down' });
  assert.deepEqual(res.body.components.store, { status: 'unhealthy', error: 'store is down' });
  assert.equal(res.headers.get('retry-after'), '5');
  const health = await s.request('GET', '/api/v1/health', { auth: false });
  assert.equal(health.status, 200);
  assert.equal(health.text, 'OK');
});

test('ready names every component that is down, including one whose probe throws or rejects', async (t) => {
  const app = express();
  let runtimeUp = false;
  app.get(
    '/ready',
    readinessHandler([
      { name: 'store', check: () => true },
      { name: 'runtime', check: () => runtimeUp },
      {
        name: 'cache',
        check: async () => {
          throw new Error('boom');
        },
      },
    ]),
  );
  app.use(errorHandler(createLogger('silent')));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const down = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(down.status, 503);
  assert.equal(down.body.reason, 'runtime is down; cache is down');
  assert.deepEqual(down.body.components.plugins, { status: 'unhealthy', error: 'runtime is down', enabled: true });
  assert.deepEqual(down.body.components.cache, { status: 'unhealthy', error: 'cache is down' });
  runtimeUp = true;
  const one = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(one.body.reason, 'cache is down');
});

test('ready follows the runtime process: down while it is not running', async (t) => {
  const s = await build(t, { devnet: true, runtime: true, config: devnetOnly });
  await s.app.runtime.close();
  const res = await s.request('GET', '/api/v1/ready', { auth: false });
  assert.equal(res.status, 503);
  assert.equal(res.body.reason, 'runtime is down');
});

test("the reference's system thresholds: degraded stays ready, unhealthy answers 503 with the reason", async (t) => {
  let system: SystemHealth = {
    status: 'degraded',
    fd_count: 750,
    fd_limit: 1024,
    fd_usage_percent: 73,
    close_wait_count: 0,
  };
  const app = express();
  app.get(
    '/ready',
    readinessHandler([{ name: 'store', check: () => true }], async () => system),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const degraded = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(degraded.status, 200);
  assert.deepEqual([degraded.body.ready, degraded.body.status, degraded.body.reason], [true, 'degraded', undefined]);
  system = {
    status: 'unhealthy',
    fd_count: 900,
    fd_limit: 1024,
    fd_usage_percent: 87,
    close_wait_count: 0,
    error: 'File descriptor limit critical: 900/1024 (87.9% > 80.0%)',
  };
  const unhealthy = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(unhealthy.status, 503);
  assert.deepEqual(
    [unhealthy.body.ready, unhealthy.body.status, unhealthy.body.reason],
    [false, 'unhealthy', system.error],
  );
});

test('a network whose every RPC URL is down leaves the instance ready but degraded, saying which network and why', async (t) => {
  const app = express();
  let outages: string[] = [
    "every RPC URL of network 'sepolia' is down (last error: HTTP 503); its transactions wait and resume when one answers",
  ];
  app.get(
    '/ready',
    readinessHandler(
      [{ name: 'store', check: () => true }],
      async () => ({ status: 'healthy', fd_count: 1, fd_limit: 1024, fd_usage_percent: 0, close_wait_count: 0 }),
      async () => outages,
    ),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const degraded = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(degraded.status, 200);
  assert.equal(degraded.body.ready, true);
  assert.equal(degraded.body.status, 'degraded');
  assert.equal(degraded.body.reason, outages[0]);
  assert.deepEqual(degraded.body.components.rpc, { status: 'degraded', error: outages[0] });
  outages = [];
  const back = await request(base, 'GET', '/ready', { auth: false });
  assert.equal(back.body.status, 'healthy');
  assert.equal(back.body.reason, undefined);
});
