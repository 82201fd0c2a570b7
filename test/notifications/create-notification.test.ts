// POST /api/v1/notifications: the record it answers, the rules it enforces, and duplicate ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const KEY = 'a-signing-key-of-at-least-32-characters!';

test('creating a notification answers 201 with the record, never the signing key', async (t) => {
  const s = await build(t);
  const res = await s.request('POST', '/api/v1/notifications', {
    body: { id: 'my-hook', type: 'webhook', url: 'https://example.com/hook', signing_key: KEY },
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body, {
    success: true,
    data: { id: 'my-hook', type: 'webhook', url: 'https://example.com/hook', has_signing_key: true },
    error: null,
  });
  assert.ok(!res.text.includes(KEY));
  assert.ok(!s.rawLogs().includes(KEY), 'the key is never logged');
});

test('without an id a UUID is generated, and the type defaults to webhook', async (t) => {
  const s = await build(t);
  const res = await s.request('POST', '/api/v1/notifications', { body: { url: 'https://203.0.113.10/x' } });
  assert.equal(res.status, 201);
  assert.match(res.body.data.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(res.body.data.type, 'webhook');
  assert.equal(res.body.data.has_signing_key, false);
});

test('an id already in use answers 409 with the spec text', async (t) => {
  const s = await build(t);
  await s.request('POST', '/api/v1/notifications', { body: { id: 'dup', url: 'https://example.com/a' } });
  const res = await s.request('POST', '/api/v1/notifications', { body: { id: 'dup', url: 'https://example.com/b' } });
  assert.equal(res.status, 409);
  assert.deepEqual(res.body, {
    success: false,
    data: null,
    error: "a notification with id 'dup' already exists",
    message: 'Notification with this ID already exists',
  });
  const seeded = await s.request('POST', '/api/v1/notifications', {
    body: { id: 'example-webhook', url: 'https://example.com/c' },
  });
  assert.equal(seeded.status, 409, 'ids seeded from the config file count too');
});

test('concurrent creations of one id give exactly one 201 and 409 for the rest, never a 500', async (t) => {
  const s = await build(t);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      s.request('POST', '/api/v1/notifications', { body: { id: 'race', url: `https://example.com/${i}` } }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
});

test('invalid bodies answer 400 Bad Request naming the field and the rule', async (t) => {
  const s = await build(t);
  const cases: Array<[unknown, RegExp]> = [
    [{}, /missing required field 'url'/],
    [{ url: 'not a url' }, /'url' must match/],
    [{ url: 'ftp://example.com/x' }, /'url' must match/],
    [{ url: 'http://' }, /'url' must match/],
    [{ url: 42 }, /'url' must be string/],
    [{ url: 'https://example.com', signing_key: 'short' }, /'signing_key' must NOT have fewer than 32 characters/],
    [{ url: 'https://example.com', id: 'x'.repeat(37) }, /'id' must match/],
    [{ url: 'https://example.com', id: 'has space' }, /'id' must match/],
    [{ url: 'https://example.com', id: '' }, /'id' must match/],
    [{ url: 'https://example.com', type: 'email' }, /'type' must be one of: webhook/],
    [{ url: 'https://example.com', colour: 'red' }, /unknown field 'colour'/],
    [[], /'body' must be object/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('POST', '/api/v1/notifications', { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.message, 'Bad Request');
    assert.equal(res.body.data, null);
    assert.match(res.body.error, reason, JSON.stringify(body));
  }
  const none = await s.request('POST', '/api/v1/notifications');
  assert.equal(none.status, 400);
  const id36 = await s.request('POST', '/api/v1/notifications', {
    body: { url: 'https://example.com', id: 'A-z_0'.repeat(7) + 'x' },
  });
  assert.equal(id36.status, 201, '36 characters of the allowed set are fine');
});
