// Class 4 of issue 13: every crossing out of the sandbox is bounded at its source. Host-call arguments are refused
// inside the sandbox before they cross (and again on the host), traces are bounded per entry and per call, KV
// keys, values and TTLs are checked (a TTL is a finite, positive number), and each plugin's KV namespace has a
// quota of keys and bytes (VALIDATION_FAILED past it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { assertEnvelope, plugin, rssMiB } from './sandbox-support.ts';

const LONG = `export const settings = { timeout: 20, memory_mb: 64, emit_traces: true };`;

test('oversized host-call arguments are refused inside the sandbox, before they cross', async (t) => {
  const s = await build(t, {
    plugins: {
      'big-keys.ts': plugin(
        `const key = 'k'.repeat(8 * 1024 * 1024); const codes = {}; for (let i = 0; i < 100; i++) { try { await kv.get(key); codes.sent = (codes.sent || 0) + 1; } catch (e) { codes[e.code] = (codes[e.code] || 0) + 1; } } return codes;`,
        LONG,
      ),
      'big-payloads.ts': plugin(
        `const r = api.useRelayer('sepolia-example'); const codes = {}; for (let i = 0; i < 40; i++) { try { await r.sendTransaction({ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, gas_price: 1, data: '0x' + 'ab'.repeat(400 * 1024) }); } catch (e) { codes[e.code] = (codes[e.code] || 0) + 1; } } try { await r.listTransactions({ x: 'y'.repeat(2 * 1024 * 1024) }); } catch (e) { codes.huge = e.code; } return codes;`,
        LONG,
      ),
    },
  });
  const pid = s.app.runtime.pid;
  const before = rssMiB(pid);
  const keys = await s.request('POST', '/api/v1/plugins/big-keys/call', { body: {} });
  assert.deepEqual(keys.body.data, { VALIDATION_FAILED: 100 });
  const payloads = await s.request('POST', '/api/v1/plugins/big-payloads/call', { body: {} });
  assertEnvelope(payloads, 'big-payloads');
  // 40 x 800 KiB would be 32 MiB: the per-call budget (8 MiB of arguments) stops it, then the 1 MiB + 64 KiB cap.
  assert.ok(payloads.body.data.API_CALL_LIMIT > 0, payloads.text.slice(0, 300));
  assert.equal(payloads.body.data.huge, 'VALIDATION_FAILED');
  const traces = payloads.body.metadata.traces as Array<{ payload: unknown }>;
  assert.ok(payloads.text.length < 300 * 1024, `answer of ${payloads.text.length} bytes with traces`);
  assert.ok(
    traces.every((e) => JSON.stringify(e.payload).length <= 16 * 1024 + 64),
    'each trace payload bounded',
  );
  assert.ok(
    traces.some((e) => (e.payload as { truncated?: boolean })?.truncated),
    'large payloads are replaced by a marker',
  );
  const after = rssMiB(s.app.runtime.pid);
  t.diagnostic(`runtime RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MiB`);
  assert.ok(after < before + 64, `runtime RSS grew from ${before.toFixed(0)} to ${after.toFixed(0)} MiB`);
});

test('a kv TTL must be a finite, positive number; nothing is stored otherwise', async (t) => {
  const s = await build(t, {
    plugins: {
      'ttl.ts': plugin(
        `const out = {}; for (const [name, ttl] of [['NaN', NaN], ['Infinity', Infinity], ['-1', -1], ['0', 0], ['string', '5'], ['null', null], ['object', { valueOf: () => 5 }]]) { try { await kv.set('k-' + name, 1, { ttlSec: ttl }); out[name] = 'stored'; } catch (e) { out[name] = e.code; } out[name] += '/' + (await kv.exists('k-' + name)); } await kv.set('fine', 1, { ttlSec: 3600 }); out.fine = await kv.exists('fine'); let lock; try { await kv.withLock('l', async () => 1, { ttlSec: NaN }); lock = 'taken'; } catch (e) { lock = e.code; } out.lock = lock; return out;`,
      ),
    },
  });
  const res = await s.request('POST', '/api/v1/plugins/ttl/call', { body: {} });
  assert.deepEqual(res.body.data, {
    NaN: 'VALIDATION_FAILED/false',
    Infinity: 'VALIDATION_FAILED/false',
    '-1': 'VALIDATION_FAILED/false',
    0: 'VALIDATION_FAILED/false',
    string: 'VALIDATION_FAILED/false',
    null: 'VALIDATION_FAILED/false',
    object: 'VALIDATION_FAILED/false',
    fine: true,
    lock: 'VALIDATION_FAILED',
  });
  const rows = s.app.db.prepare('SELECT key, expires_at FROM plugin_kv').all() as Array<{
    key: string;
    expires_at: number | null;
  }>;
  assert.deepEqual(
    rows.map((r) => r.key),
    ['fine'],
  );
  assert.ok(rows[0]!.expires_at !== null);
});

test('a plugin KV namespace has a quota of keys and bytes (config entry, else the environment)', async (t) => {
  const quota = plugin(
    `const out = {};
     const set = async (k, v, o) => { try { await kv.set(k, v, o); return 'ok'; } catch (e) { return e.code + ': ' + e.message; } };
     if (context.params === 'keys') { for (let i = 0; i < 5; i++) out['k' + i] = await set('k' + i, i); out.sixth = await set('k5', 5); out.overwrite = await set('k0', 'again'); await kv.del('k1'); out.afterDelete = await set('k5', 5); return out; }
     if (context.params === 'bytes') { await kv.clear(); out.big = await set('big', 'b'.repeat(5000)); out.small = await set('small', 'b'.repeat(1000)); return out; }
     if (context.params === 'expiry') { await kv.clear(); for (let i = 0; i < 5; i++) await set('t' + i, i, { ttlSec: 0.05 }); await new Promise((r) => r()); return out; }
     if (context.params === 'after-expiry') return { again: await set('fresh', 1) };
     return out;`,
    `export const settings = { timeout: 5, max_concurrent_calls: 99, kv_max_keys: 1000000 };`,
  );
  const s = await build(t, {
    config: { plugins: [{ id: 'quota', kv_max_keys: 5, kv_max_bytes: 4096 }] },
    env: { PLUGIN_KV_MAX_KEYS: '2' },
    plugins: { 'quota.ts': quota, 'other.ts': quota },
  });
  const call = async (id: string, params: string) =>
    (await s.request('POST', `/api/v1/plugins/${id}/call`, { body: { params } })).body.data;
  const keys = await call('quota', 'keys');
  assert.equal(keys.k4, 'ok');
  assert.match(
    keys.sixth,
    /^VALIDATION_FAILED: kv quota exceeded: this plugin may store at most 5 keys and 4096 bytes/,
  );
  assert.equal(keys.overwrite, 'ok', 'overwriting a key takes no new key');
  assert.equal(keys.afterDelete, 'ok', 'deleting frees its share');
  const bytes = await call('quota', 'bytes');
  assert.match(bytes.big, /^VALIDATION_FAILED: kv quota exceeded/);
  assert.equal(bytes.small, 'ok');
  await call('quota', 'expiry');
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual(await call('quota', 'after-expiry'), { again: 'ok' }, 'expired entries no longer count');
  // `other` has no config entry: PLUGIN_KV_MAX_KEYS applies; the plugin file's own kv_max_keys is ignored.
  const other = await call('other', 'keys');
  assert.equal(other.k1, 'ok');
  assert.match(other.k2, /^VALIDATION_FAILED: kv quota exceeded: this plugin may store at most 2 keys/);
  const listed = await s.request('GET', '/api/v1/plugins/quota');
  assert.equal(listed.body.data.kv_max_keys, 5);
  assert.equal(listed.body.data.kv_max_bytes, 4096);
});
