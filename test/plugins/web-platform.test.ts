// The web platform basics inside the sandbox, and the Node built-ins published plugins import (bundled with
// sandbox-safe implementations). Results are checked against Node's own implementations here, on the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, webcrypto } from 'node:crypto';
import { build } from '../helper.ts';

const WEB = `
export async function handler() {
  const enc = new TextEncoder().encode('héllo €😀');
  let fatal = '';
  try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
  const ac = new AbortController();
  let heard = 0;
  ac.signal.addEventListener('abort', () => heard++);
  ac.abort();
  const clone = structuredClone({ a: [1, { d: new Date(0) }], m: new Map([[1, new Set([2])]]), u: new Uint8Array([7]) });
  let cloneError = '';
  try { structuredClone({ f() {} }); } catch (e) { cloneError = e.name; }
  const url = new URL('https://user@example.com:8443/a/../b?x=1&y=%20#h');
  const qs = new URLSearchParams({ a: '1', b: 'two words' });
  const timeout = AbortSignal.timeout(5);
  await new Promise((r) => timeout.addEventListener('abort', r));
  return {
    bytes: Array.from(enc), text: new TextDecoder().decode(enc), fatal,
    b64: btoa('hi\\u00ff'), unb64: atob('aGk='),
    aborted: ac.signal.aborted, reason: ac.signal.reason.name, heard, timeoutReason: timeout.reason.name,
    clone: [clone.a[1].d instanceof Date, clone.m.get(1).has(2), clone.u[0]], cloneError,
    url: [url.href, url.host, url.pathname, url.searchParams.get('y')], qs: qs.toString(),
    buffer: Buffer.from('hello').toString('base64'),
  };
}`;

const CRYPTO = `
import nodeCrypto, { randomBytes, createHash, createHmac, randomUUID as uuid } from 'node:crypto';
import { Buffer as B } from 'buffer';
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
export async function handler() {
  const a = crypto.getRandomValues(new Uint8Array(32));
  const b = crypto.getRandomValues(new Uint8Array(32));
  const misuse = [];
  try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { misuse.push(e.name); }
  try { crypto.getRandomValues(new Float64Array(2)); } catch (e) { misuse.push(e.name); }
  const data = new TextEncoder().encode('relaybox');
  const digest = hex(await crypto.subtle.digest('SHA-256', data));
  const hmacKey = await crypto.subtle.importKey('raw', new TextEncoder().encode('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = hex(await crypto.subtle.sign('HMAC', hmacKey, data));
  try { await crypto.subtle.exportKey('raw', hmacKey); } catch (e) { misuse.push(e.name); }
  try { await crypto.subtle.verify('HMAC', hmacKey, new Uint8Array(32), data); } catch (e) { misuse.push(e.name); }
  const ec = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, ec.privateKey, data);
  const ecOk = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, ec.publicKey, sig, data);
  const ecBad = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, ec.publicKey, sig, new TextEncoder().encode('other'));
  const ed = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const edSig = await crypto.subtle.sign('Ed25519', ed.privateKey, data);
  const edOk = await crypto.subtle.verify('Ed25519', ed.publicKey, edSig, data);
  const edPub = hex(await crypto.subtle.exportKey('raw', ed.publicKey));
  try { await crypto.subtle.exportKey('pkcs8', ed.privateKey); } catch (e) { misuse.push(e.name); }
  try { await crypto.subtle.digest('SHA-7', data); } catch (e) { misuse.push(e.name); }
  return {
    differ: hex(a) !== hex(b), uuid: crypto.randomUUID(), nodeUuid: uuid(), misuse,
    digest, mac, ecOk, ecBad, edOk, edSig: hex(edSig), edPub, msg: hex(data),
    random: randomBytes(16).toString('hex').length, nodeDefault: typeof nodeCrypto.randomBytes,
    sha: createHash('sha256').update('relay').update('box').digest('hex'),
    hmac: createHmac('sha512', 'k').update('relaybox').digest('base64'),
    buffer: B.from([1, 2, 3]).toString('hex'),
  };
}`;

test('TextEncoder/TextDecoder, atob/btoa, structuredClone, AbortController, URL, Buffer work inside the sandbox', async (t) => {
  const s = await build(t, { plugins: { 'web.ts': WEB } });
  const res = await s.request('POST', '/api/v1/plugins/web/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  const url = new URL('https://user@example.com:8443/a/../b?x=1&y=%20#h');
  assert.deepEqual(res.body.data, {
    bytes: [...new TextEncoder().encode('héllo €😀')],
    text: 'héllo €😀',
    fatal: 'TypeError',
    b64: btoa('hi\u00ff'),
    unb64: 'hi',
    aborted: true,
    reason: 'AbortError',
    heard: 1,
    timeoutReason: 'TimeoutError',
    clone: [true, true, 7],
    cloneError: 'DataCloneError',
    url: [url.href, url.host, url.pathname, url.searchParams.get('y')],
    qs: 'a=1&b=two+words',
    buffer: Buffer.from('hello').toString('base64'),
  });
});

test('crypto: random values, subtle digests, HMAC, ECDSA and Ed25519, node:crypto and buffer imports; misuse is refused', async (t) => {
  const s = await build(t, { plugins: { 'crypto.ts': CRYPTO } });
  const res = await s.request('POST', '/api/v1/plugins/crypto/call', { body: {} });
  assert.equal(res.status, 200, res.text);
  const d = res.body.data;
  assert.equal(d.differ, true);
  assert.match(d.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(d.nodeUuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(d.misuse, [
    'QuotaExceededError',
    'TypeMismatchError',
    'InvalidAccessError',
    'InvalidAccessError',
    'InvalidAccessError',
    'NotSupportedError',
  ]);
  assert.equal(d.digest, createHash('sha256').update('relaybox').digest('hex'));
  assert.equal(d.mac, createHmac('sha256', 'k').update('relaybox').digest('hex'));
  assert.deepEqual([d.ecOk, d.ecBad, d.edOk], [true, false, true]);
  // The Ed25519 signature made in the sandbox verifies on the host with the public key it exported.
  const pub = await webcrypto.subtle.importKey('raw', Buffer.from(d.edPub, 'hex'), { name: 'Ed25519' }, false, [
    'verify',
  ]);
  assert.equal(
    await webcrypto.subtle.verify('Ed25519', pub, Buffer.from(d.edSig, 'hex'), Buffer.from(d.msg, 'hex')),
    true,
  );
  assert.equal(d.random, 32);
  assert.equal(d.nodeDefault, 'function');
  assert.equal(d.sha, createHash('sha256').update('relaybox').digest('hex'));
  assert.equal(d.hmac, createHmac('sha512', 'k').update('relaybox').digest('base64'));
  assert.equal(d.buffer, '010203');
});

test('random values differ between calls and between warm contexts', async (t) => {
  const s = await build(t, {
    plugins: { 'rnd.ts': `export async function handler() { return crypto.randomUUID(); }` },
  });
  const seen = new Set<string>();
  for (let i = 0; i < 6; i++) seen.add((await s.request('POST', '/api/v1/plugins/rnd/call', { body: {} })).body.data);
  assert.equal(seen.size, 6);
});

test('other Node built-ins still fail the build with a clear message', async (t) => {
  const s = await build(t, {
    plugins: {
      'fs.ts': `import { readFileSync } from 'node:fs'; export async function handler() { return readFileSync('/etc/passwd', 'utf8'); }`,
    },
  });
  const res = await s.request('POST', '/api/v1/plugins/fs/call', { body: {} });
  assert.equal(res.body.data.code, 'COMPILE_ERROR');
  assert.match(res.body.error, /"node:fs" is a Node\.js built-in module/);
});
