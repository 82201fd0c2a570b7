// One suite, both context modes (PLUGIN_CONTEXT_MODE=warm|fresh): the same rules hold; only module state differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { fixture } from '../fixtures/plugin-fixtures.ts';

const COUNTER = `let calls = 0; export async function handler(c) { calls++; return { calls, params: c.params }; }`;

for (const mode of ['warm', 'fresh'] as const) {
  test(`${mode} contexts: calls answer, limits hold, isolation holds`, async (t) => {
    const s = await build(t, {
      env: { PLUGIN_CONTEXT_MODE: mode },
      plugins: { 'counter.ts': COUNTER, 'loop.ts': fixture('infinite-loop.ts'), 'escape.ts': fixture('escape.ts') },
    });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => s.request('POST', '/api/v1/plugins/counter/call', { body: { params: i } })),
    );
    results.forEach((r, i) => assert.equal(r.body.data.params, i));
    const counts = results.map((r) => r.body.data.calls as number);
    if (mode === 'fresh')
      assert.ok(
        counts.every((c) => c === 1),
        'fresh: no module state survives a call',
      );
    else assert.ok(Math.max(...counts) > 1, 'warm: module state survives between calls served by the same context');

    const loop = await s.request('POST', '/api/v1/plugins/loop/call', { body: {} });
    assert.equal(loop.body.data.code, 'TIMEOUT');
    const escaped = await s.request('POST', '/api/v1/plugins/escape/call', { body: {} });
    for (const outcome of Object.values(escaped.body.data.attempts)) assert.notEqual(outcome, 'REACHED');
    assert.equal(
      (await s.request('POST', '/api/v1/plugins/counter/call', { body: { params: 'after' } })).body.data.params,
      'after',
    );
  });
}

test('fresh contexts survive many calls: isolates are recycled without disposing one under a running call', async (t) => {
  const s = await build(t, {
    env: { PLUGIN_CONTEXT_MODE: 'fresh', PLUGIN_THREADS: '1' },
    plugins: { 'counter.ts': COUNTER },
  });
  for (let round = 0; round < 5; round++) {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => s.request('POST', '/api/v1/plugins/counter/call', { body: { params: i } })),
    );
    for (const r of results) assert.equal(r.status, 200, r.text);
  }
});
