// A plugin's settings are taken or refused alike by the places that check them: the API (PATCH
// /api/v1/plugins/{id}), the config file's plugin entry, and the runtime (a plugin file's `settings`, an entry as the
// runtime applies it). All three compile one declaration (runtime/common/plugin-settings.ts); this holds them to it
// field by field, the operator's limits included. `timeout` once was an integer ≥ 1 in the API and a number > 0
// elsewhere, and the config file once bounded max_concurrent_calls and kv_max_bytes where the runtime did not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigFile } from '../../src/config/config.ts';
import { checkSettings } from '../../runtime/process/settings.ts';
import { OPERATOR_SETTING_PROPERTIES, PLUGIN_SETTING_PROPERTIES } from '../../runtime/common/plugin-settings.ts';
import { build } from '../helper.ts';

type Cases = Array<[field: string, values: unknown[]]>;

/** What PATCH /api/v1/plugins/{id} changes: the API, the config file and the runtime agree on each value. */
const PATCHABLE: Cases = [
  ['timeout', [0, -1, 0.25, 1, 300, 3600, 3600.5, 3601, '10', true, null]],
  ['emit_logs', [true, false, 'yes', 1]],
  ['emit_traces', [true, 'true']],
  ['raw_response', [false, 0]],
  ['allow_get_invocation', [true, 'no']],
  ['forward_logs', [false, []]],
  ['config', [{}, { a: 1 }, [], 'x', 3]],
];

const origins = (n: number) => Array.from({ length: n }, (_, i) => `https://h${i}.example.com`);
const envOf = (n: number, value = 'x') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, value]));

/** The rest: the config file's entry and the runtime agree; the API takes none of them (not its to change). */
const NOT_PATCHABLE: Cases = [
  ['memory_mb', [7, 8, 64, 1024, 1025, 8.5, '64']],
  ['max_concurrent_calls', [0, 1, 4, 100000, 100001, 1.5, '4', -1]],
  ['max_queued_calls', [-1, 0, 32, 1000000, 1000001, 0.5]],
  ['kv_max_keys', [0, 1, 50000, 100000000, 100000001]],
  ['kv_max_bytes', [1, 1023, 1024, 268435456, 1099511627776, 1099511627777]],
  [
    'allowed_origins',
    [
      [],
      ['https://api.example.com'],
      origins(256),
      origins(257),
      'https://api.example.com',
      [1],
      [''],
      ['https://example.com/path'],
      ['ftp://example.com'],
    ],
  ],
  [
    'env',
    [
      {},
      { A: 'x' },
      envOf(256),
      envOf(257),
      { A: 1 },
      [],
      'A=x',
      { A: 'x'.repeat(16385) },
      { 'BAD NAME': 'x' },
      envOf(5, 'x'.repeat(16384)),
    ],
  ],
  ['service_env', [[], ['STELLAR_NETWORK', 'lower_1'], ['A', 'A'], ['not a name'], 'A', [1]]],
];

/**
 * Where the runtime refuses what the config file takes, on purpose: a schema says the shape, the runtime what it
 * means (an origin is one; an environment's names, 64 KiB in all). The config file starts, the plugin is marked
 * INVALID_SETTINGS (test/plugins/plugin-settings.test.ts).
 */
const RUNTIME_ONLY = new Set([
  'allowed_origins=["https://example.com/path"]',
  'allowed_origins=["ftp://example.com"]',
  'env={"BAD NAME":"x"}',
  `env=${JSON.stringify(envOf(5, 'x'.repeat(16384)))}`,
]);

function configFileTakes(dir: string, field: string, value: unknown): boolean {
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      relayers: [],
      notifications: [],
      signers: [],
      networks: [],
      plugins: [{ id: 'echo', [field]: value }],
    }),
  );
  try {
    loadConfigFile(file);
    return true;
  } catch {
    return false;
  }
}

/** The runtime's entry check; and a plugin file's, for what a plugin file may set. */
function runtimeTakes(field: string, value: unknown): boolean {
  try {
    if (field in PLUGIN_SETTING_PROPERTIES) checkSettings({ [field]: value }, 'settings');
    checkSettings({ [field]: value }, 'plugins[0]', true);
    return true;
  } catch {
    return false;
  }
}

test('the cases cover every setting of the one declaration', () => {
  const covered = [...PATCHABLE, ...NOT_PATCHABLE].map(([field]) => field).sort();
  assert.deepEqual(covered, Object.keys({ ...PLUGIN_SETTING_PROPERTIES, ...OPERATOR_SETTING_PROPERTIES }).sort());
});

test('the API, the config file and the runtime take and refuse the same plugin settings', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-settings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = await build(t, { plugins: { 'echo.ts': 'export async function handler(c) { return c.params; }' } });
  const disagreements: string[] = [];
  let taken = 0;
  for (const [field, values] of PATCHABLE) {
    for (const value of values.filter((v) => v !== null)) {
      const res = await s.request('PATCH', '/api/v1/plugins/echo', { body: { [field]: value } });
      assert.ok(res.status === 200 || res.status === 400, res.text);
      const api = res.status === 200;
      const file = configFileTakes(dir, field, value);
      const runtime = runtimeTakes(field, value);
      if (api) taken++;
      if (api !== file || api !== runtime)
        disagreements.push(`${field}=${JSON.stringify(value)}: API ${api}, config file ${file}, runtime ${runtime}`);
    }
    // null puts the field back to the config file's: the API's only, since a config entry or a file leaves it out.
    assert.equal(
      (await s.request('PATCH', '/api/v1/plugins/echo', { body: { [field]: null } })).status,
      200,
      `${field}: null`,
    );
  }
  assert.deepEqual(disagreements, []);
  assert.ok(taken >= 10, 'valid values are taken, not only refused');
});

test("the config file and the runtime take the same operator's settings and memory_mb; the API none of them", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-settings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = await build(t, { plugins: { 'echo.ts': 'export async function handler(c) { return c.params; }' } });
  const disagreements: string[] = [];
  const runtimeOnly: string[] = [];
  let taken = 0;
  for (const [field, values] of NOT_PATCHABLE) {
    for (const value of values) {
      const res = await s.request('PATCH', '/api/v1/plugins/echo', { body: { [field]: value } });
      assert.equal(res.status, 400, `${field}: the API refuses it`);
      assert.match(res.body.error, new RegExp(`unknown field '${field}'`), res.text);
      const file = configFileTakes(dir, field, value);
      const runtime = runtimeTakes(field, value);
      const key = `${field}=${JSON.stringify(value)}`;
      if (file && runtime) taken++;
      if (file && !runtime && RUNTIME_ONLY.has(key)) runtimeOnly.push(key);
      else if (file !== runtime) disagreements.push(`${key.slice(0, 120)}: config file ${file}, runtime ${runtime}`);
    }
  }
  assert.deepEqual(disagreements, []);
  assert.deepEqual(
    runtimeOnly.sort(),
    [...RUNTIME_ONLY].sort(),
    'the runtime refuses what it checks beyond the schema, and the config file takes it',
  );
  assert.ok(taken >= 15, 'valid values are taken, not only refused');
});
