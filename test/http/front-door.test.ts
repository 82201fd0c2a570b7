import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shared } from '../helper.ts';

/** The tests below that only read share one app. */
const app = shared();

test('the health endpoint is public and answers the text OK, as the reference', async () => {
  const s = await app();
  const res = await s.request('GET', '/api/v1/health', { auth: false });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'OK');
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  assert.ok(res.headers.get('x-request-id'));
});

test('a request id sent by the client is echoed back', async () => {
  const s = await app();
  const res = await s.request('GET', '/api/v1/health', { headers: { 'x-request-id': 'abc-123' } });
  assert.equal(res.headers.get('x-request-id'), 'abc-123');
});

test('missing, malformed and wrong tokens answer 401 Unauthorized', async () => {
  const s = await app();
  for (const auth of [false, 'Basic abc', 'Bearer', 'Bearer wrong-key-wrong-key-wrong-key-wrong'] as const) {
    const res = await s.request('GET', '/api/v1/relayers', { auth });
    assert.equal(res.status, 401, String(auth));
    assert.equal(res.body.success, false);
    assert.equal(res.body.data, null);
    assert.equal(res.body.message, 'Unauthorized');
    assert.equal(typeof res.body.error, 'string');
  }
});

test('a plugin route reports Unauthorized in error', async () => {
  const s = await app();
  const res = await s.request('POST', '/api/v1/plugins/echo/call', { auth: false, body: { params: {} } });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'Unauthorized');
});

test('an unknown route answers 404 in the envelope, never HTML', async () => {
  const s = await app();
  const res = await s.request('GET', '/nope');
  assert.equal(res.status, 404);
  assert.equal(res.body.success, false);
  assert.equal(res.body.message, 'Not found');
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
});

test('malformed JSON, a wrong content type and an oversized body answer clear 4xx envelopes', async () => {
  const s = await app();
  const bad = await s.request('POST', '/api/v1/notifications', {
    rawBody: '{"url": ',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.message, 'Bad Request');
  // The reference's text, which its client and tests look for.
  assert.match(bad.body.error, /^Invalid JSON: /);

  const type = await s.request('POST', '/api/v1/notifications', {
    rawBody: 'url=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(type.status, 415);
  assert.match(type.body.error, /application\/json/);

  const big = await s.request('POST', '/api/v1/notifications', {
    rawBody: JSON.stringify({ url: 'x'.repeat(1024 * 1024 + 10) }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(big.status, 413);
  assert.equal(big.body.success, false);
});
