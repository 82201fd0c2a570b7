import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { fixture } from '../fixtures/plugin-fixtures.ts';

test('no host capability is reachable from plugin code', async (t) => {
  const s = await build(t, { plugins: { 'escape.ts': fixture('escape.ts') } });
  for (const mode of ['first call', 'warm call']) {
    const res = await s.request('POST', '/api/v1/plugins/escape/call', { body: {} });
    assert.equal(res.status, 200, res.text);
    const { attempts, suspiciousGlobals } = res.body.data;
    for (const [name, outcome] of Object.entries(attempts))
      assert.notEqual(outcome, 'REACHED', `${mode}: ${name} reached the host`);
    assert.notEqual(attempts['import()'], 'REACHED');
    assert.equal(attempts.fetch, 'refused', 'the sandbox fetch refuses what the egress policy does not allow');
    assert.deepEqual(suspiciousGlobals, [], 'no isolated-vm handle or host binding on the sandbox globals');
  }
});

test('globals are not shared between plugins', async (t) => {
  const writer = `export async function handler() { (globalThis as any).shared = 'secret of writer'; Object.prototype['polluted'] = true; return 'written'; }`;
  const reader = `export async function handler() { return { shared: (globalThis as any).shared ?? null, polluted: ({} as any).polluted ?? null }; }`;
  const s = await build(t, { plugins: { 'writer.ts': writer, 'reader.ts': reader } });
  assert.equal((await s.request('POST', '/api/v1/plugins/writer/call', { body: {} })).body.data, 'written');
  const res = await s.request('POST', '/api/v1/plugins/reader/call', { body: {} });
  assert.deepEqual(res.body.data, { shared: null, polluted: null });
  assert.equal(({} as any).polluted, undefined, 'the host prototype is untouched');
});

test('a plugin cannot read the environment or the API key', async (t) => {
  const plugin = `export async function handler(c) { return JSON.stringify({ g: Object.getOwnPropertyNames(globalThis), h: c.headers }); }`;
  const s = await build(t, { plugins: { 'env.ts': plugin } });
  const res = await s.request('POST', '/api/v1/plugins/env/call', { body: {} });
  assert.equal(res.status, 200);
  assert.doesNotMatch(res.body.data, /test-api-key/);
  assert.doesNotMatch(res.body.data, /"process"|"require"/);
});
