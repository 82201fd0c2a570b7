// The settings the API lets an operator change (PATCH /api/v1/plugins/{id}) are taken or refused alike by the three
// places that check them: the API, the config file's plugin entry, and the runtime (a plugin file's `settings`, an
// entry as the runtime applies it). `timeout` once was an integer ≥ 1 in the API and a number > 0 elsewhere; it is the
// latter everywhere (the reference's whole seconds, and the fractions of ours), docs/plugins.md "Settings".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigFile } from '../../src/config/config.ts';
import { checkSettings } from '../../runtime/process/settings.ts';
import { build } from '../helper.ts';

const CASES: Array<[field: string, values: unknown[]]> = [
  ['timeout', [0, -1, 0.25, 1, 300, 3600, 3600.5, 3601, '10', true]],
  ['emit_logs', [true, false, 'yes', 1]],
  ['emit_traces', [true, 'true']],
  ['raw_response', [false, 0]],
  ['allow_get_invocation', [true, 'no']],
  ['forward_logs', [false, []]],
  ['config', [{}, { a: 1 }, [], 'x', 3]],
];

function configFileTakes(dir: string, field: string, value: unknown): boolean {
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ relayers: [], notifications: [], signers: [], networks: [], plugins: [{ id: 'echo', [field]: value }] }));
  try {
    loadConfigFile(file);
    return true;
  } catch {
    return false;
  }
}

function runtimeTakes(field: string, value: unknown): boolean {
  try {
    checkSettings({ [field]: value }, 'settings');
    checkSettings({ [field]: value }, 'plugins[0]', true);
    return true;
  } catch {
    return false;
  }
}

test('the API, the config file and the runtime take and refuse the same plugin settings', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-settings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = await build(t, { plugins: { 'echo.ts': 'export async function handler(c) { return c.params; }' } });
  const disagreements: string[] = [];
  let taken = 0;
  for (const [field, values] of CASES) {
    for (const value of values) {
      const res = await s.request('PATCH', '/api/v1/plugins/echo', { body: { [field]: value } });
      assert.ok(res.status === 200 || res.status === 400, res.text);
      const api = res.status === 200;
      const file = configFileTakes(dir, field, value);
      const runtime = runtimeTakes(field, value);
      if (api) taken++;
      if (api !== file || api !== runtime) disagreements.push(`${field}=${JSON.stringify(value)}: API ${api}, config file ${file}, runtime ${runtime}`);
    }
  }
  assert.deepEqual(disagreements, []);
  assert.ok(taken >= 10, 'valid values are taken, not only refused');
});
