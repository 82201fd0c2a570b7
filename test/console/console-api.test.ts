// The API routes the console reads, through the real service and an anvil devnet: the calling key's own permissions,
// the live events stream (scoped per key, bounded per client), a transaction's timeline, a relayer's last hour and a
// plugin's recent calls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createServer } from 'node:http';
import { createHmac } from 'node:crypto';
import { eventually } from '../support/eventually.ts';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { ANVIL_KEYS, startAnvil, waitInPool, type TestAnvil } from '../support/anvil.ts';

const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const FAILING = `export async function handler() { console.log('about to fail'); throw new Error('no luck'); }\n`;
const ECHO = `export async function handler({ params }) { console.log('echo', JSON.stringify(params)); return params; }\n`;

let anvil: TestAnvil;
let s: TestServer;
let scopedKey: string;
let builtAt = 0;

before(async () => {
  anvil = await startAnvil();
  builtAt = Date.now();
  s = await build(undefined, {
    plugins: { 'echo.ts': ECHO, 'failing.ts': FAILING },
    config: {
      networks: [anvil.network('devnet')],
      signers: [
        { id: 'a-signer', type: 'local', development: true, private_key: ANVIL_KEYS[0]! },
        { id: 'b-signer', type: 'local', development: true, private_key: ANVIL_KEYS[1]! },
      ],
      relayers: [
        { id: 'a', name: 'A', network: 'devnet', signer_id: 'a-signer' },
        { id: 'b', name: 'B', network: 'devnet', signer_id: 'b-signer' },
      ],
      notifications: [],
      plugins: [],
    } as never,
  });
  await s.request('PATCH', '/api/v1/plugins/echo', { body: { emit_logs: true } });
  const created = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'only-a', permissions: ['relayer:a:read', 'plugin:echo:read'] },
  });
  assert.equal(created.status, 201, created.text);
  scopedKey = created.body.data.value;
});

after(async () => {
  await s?.close();
  await anvil?.stop();
});

const send = async (relayer: string) => {
  const res = await s.request('POST', `/api/v1/relayers/${relayer}/transactions`, {
    body: { to: TO, value: 1, speed: 'fast' },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { id: string };
};
const as = (key: string) => ({ auth: `Bearer ${key}` });

/** Reads SSE blocks from GET /api/v1/events until `enough` says so. */
async function readEvents(
  key: string,
  query: string,
  enough: (events: Array<{ event: string; data: any }>) => boolean,
  during: () => Promise<void>,
) {
  const controller = new AbortController();
  const res = await fetch(`${s.url}/api/v1/events${query}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events: Array<{ event: string; data: any }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  await during();
  while (!enough(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  controller.abort();
  return events;
}

test("GET /api-keys/me answers the calling key's own rights, whatever they are, and only to GET", async () => {
  const admin = await s.request('GET', '/api/v1/api-keys/me');
  assert.equal(admin.status, 200);
  assert.deepEqual(
    [admin.body.data.kind, admin.body.data.can.relayer.execute, admin.body.data.can.api_key.manage],
    ['admin', 'all', 'all'],
  );
  const scoped = await s.request('GET', '/api/v1/api-keys/me', as(scopedKey));
  assert.equal(scoped.status, 200, 'a key without api_key permissions may read its own');
  assert.equal(scoped.body.data.name, 'only-a');
  assert.deepEqual(scoped.body.data.permissions, ['relayer:a:read', 'plugin:echo:read']);
  assert.deepEqual(scoped.body.data.can.relayer, { read: ['a'], execute: [], manage: [] });
  assert.deepEqual(scoped.body.data.can.plugin, { read: ['echo'], execute: [], manage: [] });
  assert.ok(!JSON.stringify(scoped.body).includes(scopedKey), 'never the secret');
  assert.equal((await s.request('DELETE', '/api/v1/api-keys/me', as(scopedKey))).status, 403);
  assert.equal((await s.request('GET', '/api/v1/api-keys/me', { auth: false })).status, 401);
});

test('the events stream carries only the relayers a key may read, and relayer_id narrows it', async () => {
  let aId = '';
  const seen = await readEvents(
    scopedKey,
    '',
    (events) => events.some((e) => e.data.transaction.id === aId && e.data.transaction.status === 'confirmed'),
    async () => {
      await send('b');
      aId = (await send('a')).id;
      await send('b');
    },
  );
  assert.ok(seen.length >= 2);
  assert.ok(
    seen.every((e) => e.event === 'transaction_update' && e.data.relayer_id === 'a'),
    JSON.stringify(seen.map((e) => e.data.relayer_id)),
  );
  const onlyB = await readEvents(
    API_KEY,
    '?relayer_id=b',
    (events) => events.length >= 2,
    async () => {
      await send('a');
      await send('b');
    },
  );
  assert.ok(onlyB.every((e) => e.data.relayer_id === 'b'));
  assert.equal((await s.request('GET', '/api/v1/events?relayer_id=b', as(scopedKey))).status, 403);
  assert.equal((await s.request('GET', '/api/v1/events?relayer_id=nope')).status, 404);
  const bad = await s.request('GET', '/api/v1/events?relayer=a');
  assert.equal(bad.status, 400);
  assert.equal((await s.request('GET', '/api/v1/events', { auth: false })).status, 401);
});

test('a stream ends once its API key is deleted: a revoked key stops receiving', async () => {
  const created = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'short-lived', permissions: ['relayer:a:read'] },
  });
  const res = await fetch(`${s.url}/api/v1/events`, {
    headers: { authorization: `Bearer ${created.body.data.value}` },
  });
  assert.equal(res.status, 200);
  const drained = (async () => {
    for await (const _ of res.body!) {
      /* read until the server ends the stream */
    }
  })();
  assert.equal((await s.request('DELETE', `/api/v1/api-keys/${created.body.data.id}`)).status, 200);
  await drained; // without the recheck this never ends (the test times out)
  assert.ok(s.logs.some((l) => l.msg === 'events stream: its API key was deleted, ended'));
});

test('a client that does not read the stream is dropped, and the service goes on', async () => {
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${API_KEY}\r\n\r\n`);
  socket.pause();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // The stream is open once it listens to the feed (nothing else does).
  while (s.app.live.size === 0) await new Promise((r) => setTimeout(r, 10));
  const big = { id: 'flood', relayer_id: 'a', status: 'sent', data: `0x${'ab'.repeat(64 * 1024)}` };
  let dropped = false;
  for (let i = 0; i < 2000 && !dropped; i++) {
    s.app.live.publish({ type: 'transaction_update', relayer_id: 'a', transaction: big as never });
    dropped = s.logs.some((l) => l.msg === 'events stream: client too slow, dropped');
    if (i % 20 === 0) await new Promise((r) => setImmediate(r));
  }
  assert.ok(dropped, 'the slow client was dropped');
  socket.resume();
  await closed;
  assert.equal((await s.request('GET', '/api/v1/relayers/a')).status, 200);
});

test("a transaction's timeline has its status changes in order, its hash and its time", async () => {
  const tx = await send('a');
  let record: any;
  for (let i = 0; i < 500; i++) {
    record = (await s.request('GET', `/api/v1/relayers/a/transactions/${tx.id}`)).body.data;
    if (record.status === 'confirmed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(record.status, 'confirmed');
  const res = await s.request('GET', `/api/v1/relayers/a/transactions/${tx.id}/timeline`);
  assert.equal(res.status, 200, res.text);
  const { transaction, entries } = res.body.data;
  assert.equal(transaction.id, tx.id);
  const statuses = entries.filter((e: any) => e.kind === 'status').map((e: any) => e.status);
  assert.equal(statuses[0], 'sent');
  assert.equal(statuses.at(-1), 'confirmed');
  assert.ok(statuses.indexOf('submitted') > 0);
  const broadcasts = entries.filter((e: any) => e.kind === 'broadcast');
  assert.equal(broadcasts[0].hash, record.hash);
  assert.equal(broadcasts[0].first, true);
  assert.ok(entries.every((e: any, i: number) => i === 0 || Date.parse(e.at) >= Date.parse(entries[i - 1].at)));
  assert.equal((await s.request('GET', `/api/v1/relayers/a/transactions/nope/timeline`)).status, 404);
  assert.equal(
    (await s.request('GET', `/api/v1/relayers/b/transactions/${tx.id}/timeline`)).status,
    404,
    'under another relayer it is not found',
  );
  assert.equal(
    (await s.request('GET', `/api/v1/relayers/b/transactions/${tx.id}/timeline`, as(scopedKey))).status,
    403,
  );
});

test("a relayer's last hour counts its sends and confirmations with the stage latencies", async () => {
  const res = await s.request('GET', '/api/v1/relayers/a/activity', as(scopedKey));
  assert.equal(res.status, 200, res.text);
  const minutes = res.body.data.minutes as Array<{
    counts: Record<string, number>;
    latency: Record<string, { p50: number; p99: number }>;
  }>;
  assert.equal(minutes.length, 60);
  const total = (name: string) => minutes.reduce((n, m) => n + (m.counts[name] ?? 0), 0);
  assert.ok(total('sends') >= 3, JSON.stringify(minutes.at(-1)));
  assert.ok(total('confirmations') >= 2);
  assert.ok(minutes.some((m) => m.latency.confirm_ms && m.latency.confirm_ms.p99 >= m.latency.confirm_ms.p50));
  assert.ok(
    minutes.some((m) => m.latency.submit_ms),
    'the submit stage is timed',
  );
  assert.equal(res.body.data.oldest_unfinished_at, null, 'every transaction is final');
  // In memory: the answer says since when it counts (the app's start), so a reader knows a restart emptied it.
  const since = Date.parse(res.body.data.since);
  assert.ok(since <= Date.now() && since >= builtAt, res.body.data.since);
  // Two waiting: the older one's time.
  await anvil.setAutomine(false);
  const first = await send('a');
  await send('a');
  const waiting = (await s.request('GET', '/api/v1/relayers/a/activity')).body.data;
  const created = (await s.request('GET', `/api/v1/relayers/a/transactions/${first.id}`)).body.data;
  assert.equal(waiting.oldest_unfinished_at, created.created_at);
  await waitInPool(anvil, created.hash);
  await anvil.setAutomine(true);
  await anvil.mine();
  assert.equal((await s.request('GET', '/api/v1/relayers/b/activity', as(scopedKey))).status, 403);
  assert.equal((await s.request('GET', '/api/v1/relayers/nope/activity')).status, 404);
});

test("a plugin's recent calls keep their outcome, result and logs, newest first", async () => {
  await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { n: 1 } } });
  await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { n: 2 } } });
  const failed = await s.request('POST', '/api/v1/plugins/failing/call', { body: { params: {} } });
  assert.equal(failed.body.success, false);
  const res = await s.request('GET', '/api/v1/plugins/echo/calls', as(scopedKey));
  assert.equal(res.status, 200, res.text);
  const { calls, minutes, since } = res.body.data;
  assert.ok(Date.parse(since) <= Date.now(), since);
  assert.deepEqual(
    calls.map((c: any) => JSON.parse(c.result)),
    [{ n: 2 }, { n: 1 }],
  );
  assert.equal(calls[0].outcome, 'ok');
  assert.deepEqual(calls[0].logs, [{ level: 'log', message: 'echo {"n":2}' }]);
  assert.equal(
    minutes.reduce((n: number, m: any) => n + (m.counts.calls ?? 0), 0),
    2,
  );
  const failing = (await s.request('GET', '/api/v1/plugins/failing/calls')).body.data;
  assert.equal(failing.calls[0].outcome, 'plugin_error');
  assert.match(failing.calls[0].error.message, /no luck/);
  assert.equal(
    failing.minutes.reduce((n: number, m: any) => n + (m.counts.errors ?? 0), 0),
    1,
  );
  assert.equal((await s.request('GET', '/api/v1/plugins/failing/calls', as(scopedKey))).status, 403);
  assert.equal((await s.request('GET', '/api/v1/plugins/nope/calls')).status, 404);
});

test('a test event for a notification is queued, signed and delivered like any event, and in its delivery log', async () => {
  const bodies: Array<{ signature: string | undefined; body: string }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on(
      'end',
      () => (bodies.push({ signature: req.headers['x-signature'] as string | undefined, body }), res.end()),
    );
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const key = 'a-signing-key-of-at-least-32-characters';
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    assert.equal(
      (await s.request('POST', '/api/v1/notifications', { body: { id: 'probe', url, signing_key: key } })).status,
      201,
    );
    const res = await s.request('POST', '/api/v1/notifications/probe/test');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.event, 'notification_test');
    assert.equal(res.body.data.transaction_id, null);
    const got = await eventually(() => bodies[0]);
    assert.ok(got, 'delivered');
    const event = JSON.parse(got.body);
    assert.deepEqual(
      [event.id, event.event, event.payload.payload_type, event.payload.notification_id],
      [res.body.data.id, 'notification_test', 'notification_test', 'probe'],
    );
    assert.equal(got.signature, createHmac('sha256', key).update(got.body).digest('base64'));
    const logged = await eventually(async () =>
      (await s.request('GET', '/api/v1/notifications/probe/deliveries')).body.data.find(
        (d: any) => d.id === res.body.data.id && d.status === 'delivered',
      ),
    );
    assert.ok(logged, 'in the delivery log, delivered');
    assert.equal((await s.request('POST', '/api/v1/notifications/nope/test')).status, 404);
    assert.equal((await s.request('POST', '/api/v1/notifications/probe/test', as(scopedKey))).status, 403);
  } finally {
    await s.request('DELETE', '/api/v1/notifications/probe');
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('the OpenAPI document describes the events stream as text/event-stream, and the console routes', async () => {
  const doc = (await s.request('GET', '/api/v1/openapi.json', { auth: false })).body;
  assert.ok(doc.paths['/api/v1/events'].get.responses['200'].content['text/event-stream']);
  assert.equal(doc.paths['/api/v1/events'].get.parameters.find((p: any) => p.name === 'relayer_id').in, 'query');
  assert.ok(doc.paths['/api/v1/notifications/{id}/test']?.post, 'the test event route');
  for (const p of [
    '/api/v1/api-keys/me',
    '/api/v1/relayers/{relayer_id}/transactions/{transaction_id}/timeline',
    '/api/v1/relayers/{relayer_id}/activity',
    '/api/v1/plugins/{plugin_id}/calls',
  ])
    assert.ok(doc.paths[p]?.get, p);
});
