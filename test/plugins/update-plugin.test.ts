// PATCH /api/v1/plugins/{id}: the reference's settings, applied to the running sandbox at once and kept over restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

const PLUGIN = `export async function handler(context) { console.log('hello from the plugin'); return { config: context.config }; }`;

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  await eventually(async () => ok(await read()));
  return read();
}

test('PATCH changes a plugin at once (logs, GET calls, config), answers it flat, and the change survives a restart', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-plugin-patch-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const plugins = { 'greet.ts': PLUGIN };
  const s = await build(undefined, { dataDir, plugins });
  t.after(() => s.close());
  assert.equal((await s.request('GET', '/api/v1/plugins/greet/call')).status, 405, 'GET is not allowed by default');

  const patched = await s.request('PATCH', '/api/v1/plugins/greet', {
    body: { emit_logs: true, allow_get_invocation: true, timeout: 7, config: { greeting: 'hi' }, forward_logs: true },
  });
  assert.equal(patched.status, 200, patched.text);
  const p = patched.body.data;
  assert.deepEqual(
    [p.id, p.path, p.timeout, p.emit_logs, p.allow_get_invocation, p.forward_logs, p.config_keys],
    ['greet', 'greet.ts', 7, true, true, true, ['greeting']],
  );
  const viaGet = await waitFor(
    () => s.request('GET', '/api/v1/plugins/greet/call'),
    (r) => r.status === 200,
  );
  assert.equal(viaGet.status, 200, viaGet.text);
  assert.deepEqual(viaGet.body.data, { config: { greeting: 'hi' } });
  assert.equal(viaGet.body.metadata.logs[0].message, 'hello from the plugin');

  const bad: Array<[unknown, RegExp]> = [
    [{ timeout: 0 }, /'timeout' must be a number of seconds in \(0, 3600\], or null/],
    [{ path: '/etc/passwd' }, /unknown field 'path'/],
    [{ emit_logs: 'yes' }, /'emit_logs' must be a boolean, or null/],
    // `{}` is accepted, as the reference accepts it (test/compat/reference-differences.test.ts).
  ];
  for (const [body, reason] of bad) {
    const res = await s.request('PATCH', '/api/v1/plugins/greet', { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  assert.equal((await s.request('PATCH', '/api/v1/plugins/nope', { body: { timeout: 1 } })).status, 404);
  await s.close();

  const again = await build(t, { dataDir, plugins });
  // The runtime reports its plugins once it has loaded them.
  const kept = (
    await waitFor(
      () => again.request('GET', '/api/v1/plugins/greet'),
      (r) => r.status === 200,
    )
  ).body.data;
  assert.deepEqual([kept.timeout, kept.allow_get_invocation, kept.config_keys], [7, true, ['greeting']]);
  const reset = await again.request('PATCH', '/api/v1/plugins/greet', {
    body: { allow_get_invocation: null, config: null },
  });
  assert.equal(reset.body.data.allow_get_invocation, false, 'null puts the default back');
  assert.deepEqual(reset.body.data.config_keys, []);
  assert.equal(
    (
      await waitFor(
        () => again.request('GET', '/api/v1/plugins/greet/call'),
        (r) => r.status === 405,
      )
    ).status,
    405,
  );
});
