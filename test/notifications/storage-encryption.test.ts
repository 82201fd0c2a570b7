// Signing keys at rest: sealed with AES-256-GCM under STORAGE_ENCRYPTION_KEY, opened only to sign.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { createSecretBox } from '../../src/domain/secret-box.ts';
import {
  FAST_WEBHOOKS,
  emit,
  pointRelayer,
  startReceiver,
  txRecord,
  waitFor,
  waitForFailedDelivery,
} from '../webhooks/support.ts';

const KEY = 'a-signing-key-of-at-least-32-characters!';
const STORAGE_KEY = 'storage-encryption-key-0123456789abcdef';

test('a sealed key opens only with the same storage key and owner', () => {
  const box = createSecretBox(STORAGE_KEY);
  const sealed = box.seal(KEY, 'n1');
  assert.match(sealed, /^enc:v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
  assert.notEqual(box.seal(KEY, 'n1'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed, 'n1'), KEY);
  assert.throws(() => box.open(sealed, 'n2'), /cannot be decrypted/);
  assert.throws(
    () => createSecretBox('another-storage-key-0123456789abcdef').open(sealed, 'n1'),
    /STORAGE_ENCRYPTION_KEY differs/,
  );
  assert.throws(
    () => createSecretBox(undefined).open(sealed, 'n1'),
    /stored encrypted but STORAGE_ENCRYPTION_KEY is not set/,
  );
  assert.equal(createSecretBox(undefined).seal(KEY, 'n1'), KEY, 'without a storage key, keys are stored as given');
});

test('with STORAGE_ENCRYPTION_KEY the stored key is ciphertext, and webhooks are still signed with the real key', async (t) => {
  const receiver = await startReceiver(t);
  const s = await build(t, { env: { ...FAST_WEBHOOKS, STORAGE_ENCRYPTION_KEY: STORAGE_KEY } });
  await s.request('POST', '/api/v1/notifications', { body: { id: 'sealed', url: receiver.url, signing_key: KEY } });
  const stored = s.app.db.prepare('SELECT signing_key FROM notifications WHERE id = ?').pluck().get('sealed') as string;
  assert.match(stored, /^enc:v1:/);
  assert.ok(!stored.includes(KEY));

  pointRelayer(s.app.db, 'hook-relayer', 'sealed');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const [hit] = await waitFor(() => receiver.received.length > 0 && receiver.received, 'the webhook');
  assert.equal(hit!.headers['x-signature'], createHmac('sha256', KEY).update(hit!.raw).digest('base64'));
  assert.ok(!s.rawLogs().includes(KEY));
});

test('plain keys stored earlier are sealed when the service starts with STORAGE_ENCRYPTION_KEY', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-enc-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const plain = await build(t, { dataDir });
  await plain.request('POST', '/api/v1/notifications', {
    body: { id: 'old', url: 'https://example.com', signing_key: KEY },
  });
  assert.equal(plain.app.db.prepare('SELECT signing_key FROM notifications WHERE id = ?').pluck().get('old'), KEY);
  await plain.close();
  const sealed = await build(t, { dataDir, env: { STORAGE_ENCRYPTION_KEY: STORAGE_KEY } });
  assert.match(
    sealed.app.db.prepare('SELECT signing_key FROM notifications WHERE id = ?').pluck().get('old') as string,
    /^enc:v1:/,
  );
});

test('a sealed key without STORAGE_ENCRYPTION_KEY is a clear error at start and at delivery, not a crash', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-enc-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const receiver = await startReceiver(t);
  const first = await build(t, { dataDir, env: { STORAGE_ENCRYPTION_KEY: STORAGE_KEY } });
  await first.request('POST', '/api/v1/notifications', { body: { id: 'locked', url: receiver.url, signing_key: KEY } });
  await first.close();

  const s = await build(t, { dataDir, env: { ...FAST_WEBHOOKS, WEBHOOK_MAX_ATTEMPTS: '2' } });
  const startLine = s.logs.find(
    (l) =>
      typeof l.msg === 'string' &&
      l.msg.startsWith('signing keys are stored encrypted but STORAGE_ENCRYPTION_KEY is not set'),
  );
  assert.ok(startLine);
  assert.deepEqual(startLine.notificationIds, ['locked']);

  pointRelayer(s.app.db, 'hook-relayer', 'locked');
  await emit(s.app.store, txRecord('hook-relayer', 'tx-1'));
  const failed = await waitForFailedDelivery(s, 'locked');
  assert.equal(failed.last_error, 'the signing key is stored encrypted but STORAGE_ENCRYPTION_KEY is not set');
  assert.equal(receiver.received.length, 0, 'nothing unsigned is sent in its place');
  assert.equal((await s.request('GET', '/api/v1/health')).status, 200);
});
