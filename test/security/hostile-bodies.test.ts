// Hostile request bodies: oversized, malformed, truncated, mistyped, deeply nested, not UTF-8. Each is a 4xx that writes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, evmBody, txPath } from '../transactions/fixtures.ts';
import { API_KEY, type TestServer, shared } from '../helper.ts';
import { assertRejected, nestedArrays, nestedObjects, rawRequest, storeCounts } from './support.ts';

/** The tests below only read, or check what a request changed against counts taken just before: they share one app. */
const app = shared(() => buildWithRelayers(undefined));

const JSON_TYPE = { 'content-type': 'application/json' };
const HOOK = 'http://127.0.0.1:9/hook';

/** The three body-taking record routes: send, replace (of a real transaction) and notification create. */
async function targets(s: TestServer) {
  const sent = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(sent.status, 200);
  return [
    { name: 'send', method: 'POST', path: txPath('evm'), valid: JSON.stringify(evmBody()) },
    {
      name: 'replace',
      method: 'PUT',
      path: txPath('evm', sent.body.data.id),
      valid: JSON.stringify(evmBody({ max_fee_per_gas: 4_000_000_000 })),
    },
    { name: 'notification', method: 'POST', path: '/api/v1/notifications', valid: JSON.stringify({ url: HOOK }) },
  ];
}

test('a body over 1 MiB answers 413 with the limit named, on every body route', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  const padding = 'a'.repeat(1024 * 1024);
  for (const r of routes) {
    const res = await s.request(r.method, r.path, { rawBody: `{"x":"${padding}"}`, headers: JSON_TYPE });
    assertRejected(res, r.name, { status: 413, message: 'Payload Too Large', error: /exceeds 1 MiB/ });
  }
  assert.deepEqual(storeCounts(s), before);
});

test('malformed and truncated JSON answers 400 naming the parse failure', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  for (const r of routes) {
    const bodies = [
      '{"value":1,}',
      '{value:1}',
      "{'url':'x'}",
      'NaN',
      '{"a":1}}',
      r.valid.slice(0, Math.floor(r.valid.length / 2)),
      r.valid.slice(0, -1),
      '{"a":"\\x"}',
    ];
    for (const body of bodies) {
      const res = await s.request(r.method, r.path, { rawBody: body, headers: JSON_TYPE });
      assertRejected(res, `${r.name} ${body}`, { status: 400, message: 'Bad Request', error: /^Invalid JSON: / });
    }
  }
  assert.deepEqual(storeCounts(s), before);
});

test('JSON that is not an object, or no body at all, answers 400 with the reason', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  for (const r of routes) {
    for (const body of ['null', '[]', '"text"', '42', 'true', '']) {
      const res = await s.request(r.method, r.path, { rawBody: body, headers: JSON_TYPE });
      assertRejected(res, `${r.name} ${JSON.stringify(body)}`, { status: 400, message: 'Bad Request' });
    }
  }
  assert.deepEqual(storeCounts(s), before);
});

test('a body that is not labelled JSON answers 415 naming the content type, even when it is valid JSON', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  for (const r of routes) {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'text/json',
      'application/xml',
    ]) {
      const res = await s.request(r.method, r.path, { rawBody: r.valid, headers: { 'content-type': type } });
      assertRejected(res, `${r.name} ${type}`, {
        status: 415,
        message: 'Unsupported Media Type',
        error: /Content-Type must be application\/json/,
      });
    }
    // No Content-Type header at all (fetch would add text/plain).
    const bare = await rawRequest(s.url, r.method, r.path, [['Authorization', `Bearer ${API_KEY}`]], r.valid);
    assertRejected(bare, `${r.name} without Content-Type`, { status: 415, error: /got 'none'/ });
  }
  assert.deepEqual(storeCounts(s), before);
});

test('10,000 levels of nesting in a send body and a notification body answer 400 naming the depth limit', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  for (const r of routes) {
    for (const [kind, deep] of [
      ['arrays', nestedArrays(10_000)],
      ['objects', nestedObjects(10_000)],
    ] as const) {
      const body = r.valid.replace(/}$/, `,"nested":${deep}}`);
      const res = await s.request(r.method, r.path, { rawBody: body, headers: JSON_TYPE });
      assertRejected(res, `${r.name} ${kind}`, {
        status: 400,
        message: 'Bad Request',
        error: /nests deeper than 128 levels/,
      });
    }
  }
  // Brackets inside strings are text, not nesting.
  const inString = await s.request('POST', '/api/v1/notifications', {
    rawBody: JSON.stringify({ url: HOOK, id: '['.repeat(10_000) }),
    headers: JSON_TYPE,
  });
  assertRejected(inString, 'brackets in a string', { status: 400, error: /'id' must match pattern/ });
  // At the limit the parser lets it through and the schema answers instead.
  const atLimit = await s.request('POST', txPath('evm'), {
    rawBody: JSON.stringify(evmBody()).replace(/}$/, `,"data":${nestedArrays(127)}}`),
    headers: JSON_TYPE,
  });
  assertRejected(atLimit, 'at the limit', { status: 400, error: /'data' must be string/ });
  assert.deepEqual(storeCounts(s), before);
});

test('bytes that are not UTF-8 answer 400 naming the encoding', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  const invalid = [
    [0xff, 0xfe],
    [0xc0, 0xaf], // overlong '/'
    [0xed, 0xa0, 0x80], // an encoded UTF-16 surrogate
    [0xe2, 0x82], // truncated sequence
    [0x80],
  ];
  for (const r of routes) {
    for (const bytes of invalid) {
      const body = Buffer.concat([Buffer.from('{"url":"'), Buffer.from(bytes), Buffer.from('"}')]);
      const res = await s.request(r.method, r.path, { rawBody: body, headers: JSON_TYPE });
      assertRejected(res, `${r.name} ${bytes}`, { status: 400, message: 'Bad Request', error: /not valid UTF-8/ });
    }
  }
  assert.deepEqual(storeCounts(s), before);
});

test('a body compressed with an unknown or broken encoding answers 4xx, never 5xx', async () => {
  const s = await app();
  const routes = await targets(s);
  const before = storeCounts(s);
  for (const r of routes) {
    const broken = await s.request(r.method, r.path, {
      rawBody: 'not gzip',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
    });
    assertRejected(broken, `${r.name} gzip`, { status: 400 });
    const unknown = await s.request(r.method, r.path, {
      rawBody: r.valid,
      headers: { ...JSON_TYPE, 'content-encoding': 'x-made-up' },
    });
    assertRejected(unknown, `${r.name} unknown`, { status: 415, error: /unsupported content encoding/ });
  }
  assert.deepEqual(storeCounts(s), before);
});
