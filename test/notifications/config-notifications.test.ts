// Notifications from the config file: seeded at start, keys from the environment, and when a restart overwrites.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { loadConfig } from '../../src/config/config.ts';

const KEY = 'a-signing-key-of-at-least-32-characters!';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-seed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('notifications of the config file exist at start, with a key read from signing_key_env', async (t) => {
  const s = await build(t, {
    env: { HOOK_KEY: KEY },
    config: {
      notifications: [
        { id: 'example-webhook', url: 'https://example.com/a' },
        { id: 'from-env', url: 'https://example.com/b', signing_key_env: 'HOOK_KEY' },
      ],
    },
  });
  const list = await s.request('GET', '/api/v1/notifications');
  const byId = Object.fromEntries(list.body.data.map((n: { id: string }) => [n.id, n]));
  assert.deepEqual(byId['from-env'], {
    id: 'from-env',
    type: 'webhook',
    url: 'https://example.com/b',
    has_signing_key: true,
  });
  assert.equal(byId['example-webhook'].has_signing_key, false);
  assert.ok(!s.rawLogs().includes(KEY));
});

test('a signing_key_env naming an unset or short variable stops the start with a clear message', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-seed-'));
  try {
    const base = { API_KEY: 'x'.repeat(32), DATA_DIR: dir };
    assert.throws(
      () => loadConfigWith(dir, base, { id: 'n', url: 'https://example.com', signing_key_env: 'MISSING_KEY' }),
      /signing_key_env: environment variable MISSING_KEY is not set/,
    );
    assert.throws(
      () =>
        loadConfigWith(
          dir,
          { ...base, SHORT: 'abc' },
          { id: 'n', url: 'https://example.com', signing_key_env: 'SHORT' },
        ),
      /SHORT must hold at least 32 characters/,
    );
    assert.throws(
      () => loadConfigWith(dir, base, { id: 'n', url: 'https://example.com', signing_key: KEY, signing_key_env: 'X' }),
      /must NOT be valid/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function loadConfigWith(dir: string, env: Record<string, string>, notification: object) {
  const base = loadConfig({ ...env, CONFIG_PATH: '' }).file;
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ ...base, notifications: [...base.notifications, notification] }));
  return loadConfig({ ...env, CONFIG_PATH: file });
}

test('API changes to a config notification survive a restart; an edited config entry overwrites them', async (t) => {
  const dataDir = tempDir(t);
  const first = await build(t, {
    dataDir,
    config: { notifications: [{ id: 'example-webhook', url: 'https://example.com/a' }] },
  });
  await first.request('PATCH', '/api/v1/notifications/example-webhook', {
    body: { url: 'https://example.com/patched' },
  });
  await first.close();

  const same = await build(t, {
    dataDir,
    config: { notifications: [{ id: 'example-webhook', url: 'https://example.com/a' }] },
  });
  assert.equal(
    (await same.request('GET', '/api/v1/notifications/example-webhook')).body.data.url,
    'https://example.com/patched',
  );
  await same.close();

  const edited = await build(t, {
    dataDir,
    config: { notifications: [{ id: 'example-webhook', url: 'https://example.com/edited', signing_key: KEY }] },
  });
  const got = await edited.request('GET', '/api/v1/notifications/example-webhook');
  assert.deepEqual(got.body.data, {
    id: 'example-webhook',
    type: 'webhook',
    url: 'https://example.com/edited',
    has_signing_key: true,
  });
  assert.ok(edited.logs.some((l) => l.msg === 'notification updated from the changed config file'));
});
