// The reference's plugin settings as the runtime applies them: forward_logs, the default timeout, and the
// operator-only egress policy and environment (a plugin file cannot grant itself either).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const LOGGER = `export async function handler() { console.info('hello from the plugin'); console.error('something bad'); console.debug('details'); return 'ok'; }`;

test("forward_logs writes the call's console lines to the service log, levels mapped, without returning them", async (t) => {
  const s = await build(t, {
    plugins: { 'logger.ts': LOGGER, 'quiet.ts': LOGGER },
    config: { plugins: [{ id: 'logger', forward_logs: true }] } as never,
  });
  const res = await s.request('POST', '/api/v1/plugins/logger/call', {
    body: {},
    headers: { 'x-request-id': 'fwd-1' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.metadata, undefined, 'emit_logs is off: the client gets no logs');
  await s.request('POST', '/api/v1/plugins/quiet/call', { body: {} });
  const forwarded = s.logs.filter((l) => l.source === 'plugin');
  assert.deepEqual(
    forwarded.map((l) => [l.level, l.msg, l.plugin, l.requestId]),
    [
      [30, 'hello from the plugin', 'logger', 'fwd-1'],
      [50, 'something bad', 'logger', 'fwd-1'],
      [20, 'details', 'logger', 'fwd-1'],
    ],
  );
});

test("the default timeout is the reference's 300 s; a config entry overrides it", async (t) => {
  const s = await build(t, {
    plugins: { 'a.ts': LOGGER, 'b.ts': LOGGER },
    config: { plugins: [{ id: 'b', timeout: 30 }] } as never,
  });
  assert.equal((await s.request('GET', '/api/v1/plugins/a')).body.data.timeout, 300);
  assert.equal((await s.request('GET', '/api/v1/plugins/b')).body.data.timeout, 30);
});

test("allowed_origins and env are the operator's: a plugin file setting them is ignored with a warning", async (t) => {
  const plugin = `export const settings = { allowed_origins: ['http://127.0.0.1:9'], env: { SECRET: 'x' } };
export async function handler() { const r = await fetch('http://127.0.0.1:9/').then(() => 'reached', (e) => e.code); return { fetch: r, env: process.env.SECRET ?? null }; }`;
  const s = await build(t, { plugins: { 'greedy.ts': plugin } });
  const res = await s.request('POST', '/api/v1/plugins/greedy/call', { body: {} });
  assert.deepEqual(res.body.data, { fetch: 'EGRESS_DENIED', env: null });
  for (const key of ['allowed_origins', 'env'])
    assert.ok(
      s.logs.some((l) => l.level === 40 && String(l.msg).includes(`settings.${key} is set by the operator`)),
      key,
    );
});

test('a malformed egress policy or env in the config entry marks the plugin INVALID_SETTINGS', async (t) => {
  const s = await build(t, {
    plugins: { 'a.ts': LOGGER, 'b.ts': LOGGER },
    config: {
      plugins: [
        { id: 'a', allowed_origins: ['https://example.com/path'] },
        { id: 'b', env: { 'BAD NAME': 'x' } },
      ],
    } as never,
  });
  for (const id of ['a', 'b']) {
    const res = await s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
    assert.equal(res.body.data.code, 'INVALID_SETTINGS', res.text);
  }
});

test('env values stay private: the plugin listing names the keys only', async (t) => {
  const s = await build(t, {
    plugins: { 'a.ts': LOGGER },
    config: { plugins: [{ id: 'a', env: { ADMIN_SECRET: 'do-not-show-me' } }] } as never,
  });
  const res = await s.request('GET', '/api/v1/plugins/a');
  assert.deepEqual(res.body.data.env_keys, ['ADMIN_SECRET']);
  assert.ok(!res.text.includes('do-not-show-me'));
  assert.ok(!(await s.request('GET', '/api/v1/plugins')).text.includes('do-not-show-me'));
});
