import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

const KV = `export async function handler({ kv, params }) {
  const out: Record<string, unknown> = {};
  switch (params.op) {
    case 'set': return kv.set(params.key, params.value, params.ttlSec ? { ttlSec: params.ttlSec } : undefined);
    case 'get': return kv.get(params.key);
    case 'del': return kv.del(params.key);
    case 'exists': return kv.exists(params.key);
    case 'list': return kv.listKeys(params.pattern);
    case 'clear': return kv.clear();
    case 'bad-key': try { await kv.set('no spaces allowed', 1); } catch (e) { return { code: e.code, status: e.status, message: e.message }; }
    case 'lock': return kv.withLock('job', async () => { const inner = await kv.withLock('job', async () => 'inner', { onBusy: 'skip' }); return { inner }; });
    case 'lock-throw': try { await kv.withLock('job2', () => kv.withLock('job2', async () => 1)); } catch (e) { return e.code; }
  }
  return out;
}`;

test('kv stores JSON values per plugin with get, set, del, exists, listKeys and clear', async (t) => {
  const s = await build(t, { plugins: { 'store.ts': KV, 'other.ts': KV } });
  const call = async (id: string, params: unknown) =>
    (await s.request('POST', `/api/v1/plugins/${id}/call`, { body: { params } })).body.data;
  assert.equal(await call('store', { op: 'set', key: 'user:1', value: { name: 'ada', n: [1, 2] } }), true);
  await call('store', { op: 'set', key: 'user:2', value: 'x' });
  await call('store', { op: 'set', key: 'other', value: 1 });
  assert.deepEqual(await call('store', { op: 'get', key: 'user:1' }), { name: 'ada', n: [1, 2] });
  assert.equal(await call('store', { op: 'get', key: 'missing' }), null);
  assert.equal(await call('store', { op: 'exists', key: 'user:2' }), true);
  assert.deepEqual(await call('store', { op: 'list', pattern: 'user:*' }), ['user:1', 'user:2']);
  assert.equal(await call('other', { op: 'get', key: 'user:1' }), null, 'namespaced per plugin');
  assert.equal(await call('store', { op: 'del', key: 'user:2' }), true);
  assert.equal(await call('store', { op: 'exists', key: 'user:2' }), false);
  assert.equal(await call('store', { op: 'clear' }), 2);
  assert.deepEqual(await call('store', { op: 'list' }), []);
});

test('an expired kv entry is gone', async (t) => {
  const s = await build(t, { plugins: { 'store.ts': KV } });
  const call = async (params: unknown) =>
    (await s.request('POST', '/api/v1/plugins/store/call', { body: { params } })).body.data;
  await call({ op: 'set', key: 'short', value: 1, ttlSec: 0.05 });
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(await call({ op: 'get', key: 'short' }), null);
});

test('an invalid kv key rejects with a catchable validation error', async (t) => {
  const s = await build(t, { plugins: { 'store.ts': KV } });
  const res = await s.request('POST', '/api/v1/plugins/store/call', { body: { params: { op: 'bad-key' } } });
  assert.equal(res.body.data.code, 'VALIDATION_FAILED');
  assert.equal(res.body.data.status, 400);
  assert.match(res.body.data.message, /invalid kv key/);
});

test('withLock runs the function once per holder; a busy lock skips or throws', async (t) => {
  const s = await build(t, { plugins: { 'store.ts': KV } });
  const skip = await s.request('POST', '/api/v1/plugins/store/call', { body: { params: { op: 'lock' } } });
  assert.deepEqual(skip.body.data, { inner: null });
  const busy = await s.request('POST', '/api/v1/plugins/store/call', { body: { params: { op: 'lock-throw' } } });
  assert.equal(busy.body.data, 'LOCK_BUSY');
});
