// Issue 39, break 7: every authenticated route counts against the key's rate limit, not only the busy ones. The
// routes come from the app's route table (src/openapi/registry.ts ROUTE_GROUPS, which test/operations/openapi.test.ts
// proves is every mounted route): for each one behind the API key, a fresh key limited to 1 request a second (burst
// 1) is answered 429 with Retry-After within a few requests. A route outside the limit answers its own status for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_GROUPS } from '../../src/openapi/registry.ts';
import { build, type TestServer } from '../helper.ts';

/** The concrete path of an Express route template: every `:param` an id that exists nowhere. */
const concrete = (template: string) =>
  template.replace(/:([A-Za-z_]+)/g, (_m, name: string) => `no-such-${name.replace(/_/g, '-')}`);

/** One request as `secret`: its status and Retry-After, the body left unread (the event stream never ends). */
async function hit(
  s: TestServer,
  method: string,
  path: string,
  secret: string,
): Promise<{ status: number; retryAfter: string | null }> {
  const controller = new AbortController();
  const hasBody = !['get', 'head', 'delete'].includes(method);
  const res = await fetch(s.url + path, {
    method: method.toUpperCase(),
    headers: { authorization: `Bearer ${secret}`, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: '{}' } : {}),
    signal: controller.signal,
  });
  controller.abort();
  await res.body?.cancel().catch(() => undefined);
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
}

test('every route behind the API key answers 429 once the key is over its own limit', async (t) => {
  const s = await build(t, {
    devnet: false,
    runtime: false,
    env: { RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' },
  });
  const routes = ROUTE_GROUPS.flatMap((group) =>
    group.routes
      .filter((route) => route.auth ?? group.auth ?? true)
      .map((route) => ({ method: route.method, path: `${group.prefix}${concrete(route.path)}` })),
  );
  assert.ok(routes.length > 40, `the route table was read (${routes.length} routes)`);
  const unlimited: string[] = [];
  for (const { method, path } of routes) {
    // A key of its own per route, allowed everything: the limit, not a permission, is what answers.
    const minted = await s.request('POST', '/api/v1/api-keys', {
      body: {
        name: `${method} ${path}`.slice(0, 200),
        permissions: ['*:*:*'],
        rate_limit: { requests_per_second: 1, burst_size: 1 },
      },
    });
    assert.equal(minted.status, 201, minted.text);
    let limited: { status: number; retryAfter: string | null } | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const answer = await hit(s, method, path, minted.body.data.value);
      if (answer.status === 429) limited = answer;
    }
    if (!limited) unlimited.push(`${method.toUpperCase()} ${path}`);
    else
      assert.ok(Number(limited.retryAfter) >= 1, `${method.toUpperCase()} ${path}: Retry-After says when to come back`);
  }
  assert.deepEqual(unlimited, [], 'routes outside the per-key limit');
});

test('the routes without a key (health, readiness, the API reference) stay outside the limit', async (t) => {
  const s = await build(t, { devnet: false, runtime: false, env: { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '1' } });
  const open = ROUTE_GROUPS.flatMap((group) =>
    group.routes
      .filter((route) => route.auth === false || (route.auth === undefined && group.auth === false))
      .map((route) => `${group.prefix}${concrete(route.path)}`),
  );
  assert.ok(open.includes('/api/v1/health'), open.join(', '));
  for (const path of open) {
    for (let i = 0; i < 5; i++) assert.notEqual((await hit(s, 'get', path, 'not-a-key')).status, 429, path);
  }
});
