// Abusive plugins: each tries to exhaust one resource and gets its specific error, while health and another
// plugin's calls, fired at the same time, keep answering; afterwards the runtime's memory is back near baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build, type TestResponse, type TestServer } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

const ECHO = `export async function handler(c) { return c.params; }`;
const FAST = `export const settings = { timeout: 0.5, memory_mb: 32, emit_logs: true };`;
// Where the limit under test is not the time, the timeout is far beyond what a loaded machine needs, so it never wins.
const BOMB = `export const settings = { timeout: 120, memory_mb: 32 };`;
const plugin = (body: string, settings = FAST) =>
  `${settings}\nexport async function handler({ kv, api }) {\n${body}\n}\n`;

interface Abuse {
  id: string;
  source: string;
  expect: (res: TestResponse) => void;
}

const failsWith = (status: number, code: string, message?: RegExp) => (res: TestResponse) => {
  assert.equal(res.status, status, res.text.slice(0, 300));
  assert.equal(res.body.success, false);
  assert.equal(res.body.data.code, code, res.text.slice(0, 300));
  if (message) assert.match(res.body.error, message);
};

const ABUSES: Abuse[] = [
  { id: 'sync-loop', source: plugin(`for (;;) {}`), expect: failsWith(504, 'TIMEOUT') },
  { id: 'loop-after-await', source: plugin(`await kv.get('x'); for (;;) {}`), expect: failsWith(504, 'TIMEOUT') },
  {
    id: 'microtask-flood',
    source: plugin(`(function f() { Promise.resolve().then(f); })(); await new Promise(() => {});`),
    expect: failsWith(504, 'TIMEOUT'),
  },
  {
    id: 'array-growth',
    source: plugin(`const a = []; for (;;) a.push(new Array(1e5).fill(1.5));`, BOMB),
    expect: failsWith(500, 'MEMORY_LIMIT_EXCEEDED'),
  },
  {
    id: 'dictionary-growth',
    source: plugin(`const o = {}; for (let i = 0; ; i++) o['a' + i] = i;`, BOMB),
    expect: failsWith(500, 'MEMORY_LIMIT_EXCEEDED'),
  },
  // Doubling builds ropes (cons strings) that cost almost no memory: V8's string length cap stops it first.
  {
    id: 'string-doubling',
    source: plugin(`let s = 'x'; for (;;) s += s;`, BOMB),
    expect: failsWith(500, 'PLUGIN_ERROR', /Invalid string length/),
  },
  // indexOf flattens each string, so the doubling really allocates.
  {
    id: 'string-doubling-flat',
    source: plugin(`let s = 'x'; const keep = []; for (;;) { s += s; s.indexOf('z'); keep.push(s); }`, BOMB),
    expect: failsWith(500, 'MEMORY_LIMIT_EXCEEDED'),
  },
  {
    id: 'unbounded-recursion',
    source: plugin(`function f(n) { return f(n + 1) + 1; } return f(0);`, BOMB),
    expect: failsWith(500, 'PLUGIN_ERROR', /call stack/i),
  },
  {
    id: 'result-50mb',
    source: plugin(`return 'x'.repeat(50 * 1024 * 1024);`, `export const settings = { timeout: 120, memory_mb: 256 };`),
    expect: failsWith(500, 'RESULT_TOO_LARGE'),
  },
  {
    id: 'log-100k-lines',
    source: plugin(
      `for (let i = 0; i < 100000; i++) console.log('line', i, 'x'.repeat(100)); return 'done';`,
      `export const settings = { timeout: 120, emit_logs: true };`,
    ),
    expect: (res) => {
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const logs = res.body.metadata.logs as Array<{ message: string }>;
      assert.ok(logs.length <= 201, `${logs.length} lines`);
      assert.match(logs.at(-1)!.message, /\d+ log line\(s\) dropped/);
    },
  },
  {
    id: 'api-10k-calls',
    source: plugin(
      `let ok = 0, limited = 0, code; const r = api.useRelayer('sepolia-example'); for (let i = 0; i < 10000; i++) { try { await (i % 2 ? kv.exists('k') : r.getRelayer()); ok++; } catch (e) { limited++; code = e.code; } } return { ok, limited, code };`,
      `export const settings = { timeout: 120 };`,
    ),
    expect: (res) => {
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { ok: 100, limited: 9900, code: 'API_CALL_LIMIT' });
    },
  },
  {
    id: 'api-cap-uncaught',
    source: plugin(`for (;;) await kv.exists('k');`, `export const settings = { timeout: 120 };`),
    expect: failsWith(429, 'API_CALL_LIMIT'),
  },
  {
    id: 'kv-10mb-value',
    source: plugin(
      `await kv.set('big', 'v'.repeat(10 * 1024 * 1024)); return 'stored';`,
      `export const settings = { timeout: 120, memory_mb: 128 };`,
    ),
    expect: failsWith(400, 'VALIDATION_FAILED', /kv value exceeds 1048576 bytes/),
  },
  {
    id: 'kv-flood',
    source: plugin(
      `let n = 0; try { for (let i = 0; i < 100000; i++) { await kv.set('k' + i, i); n++; } } catch (e) { return { n, code: e.code, keys: (await kv.listKeys('*').catch((e) => e.code)) }; } return { n };`,
      `export const settings = { timeout: 120 };`,
    ),
    expect: (res) => {
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { n: 100, code: 'API_CALL_LIMIT', keys: 'API_CALL_LIMIT' });
    },
  },
];

function rssKiB(pid: number | undefined): number {
  assert.ok(pid, 'the runtime is up');
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

async function runtimeUp(s: TestServer): Promise<void> {
  const up = await eventually(
    async () => (await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: 0 } })).status === 200,
  );
  assert.ok(up, 'the runtime did not come back');
}

test('each abusive plugin gets its own error while the service keeps answering, and memory returns to baseline', async (t) => {
  const plugins: Record<string, string> = { 'echo.ts': ECHO };
  for (const a of ABUSES) plugins[`${a.id}.ts`] = a.source;
  const s = await build(t, { plugins });
  for (let i = 0; i < 20; i++)
    assert.equal((await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } })).body.data, i);
  const baseline = rssKiB(s.app.runtime.pid);
  let restarts = 0;
  for (const a of ABUSES) {
    const pid = s.app.runtime.pid;
    const abusive = s.request('POST', `/api/v1/plugins/${a.id}/call`, { body: {} });
    // While it runs: health and another plugin answer. A catastrophic OOM takes the runtime down, and the
    // calls in flight with it answer a clean 503 + Retry-After; everything else must be 200.
    const during: Array<Promise<TestResponse>> = [];
    for (let i = 0; i < 5; i++) {
      during.push(
        s.request('GET', '/api/v1/health', { auth: false }),
        s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { i } } }),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await abusive;
    a.expect(res);
    for (const r of await Promise.all(during)) {
      if (r.status === 503) {
        assert.equal(r.headers.get('retry-after'), '1', `${a.id}: ${r.text}`);
        assert.equal(r.body.success, false);
      } else assert.equal(r.status, 200, `${a.id}: ${r.text}`);
    }
    await runtimeUp(s);
    if (s.app.runtime.pid !== pid) restarts++;
    t.diagnostic(
      `${a.id}: ${res.status} ${res.body.data?.code ?? 'ok'}${s.app.runtime.pid !== pid ? ' (runtime restarted)' : ''}, runtime RSS ${Math.round(rssKiB(s.app.runtime.pid) / 1024)} MiB`,
    );
  }
  for (let i = 0; i < 20; i++) await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } });
  const after = rssKiB(s.app.runtime.pid);
  t.diagnostic(
    `runtime RSS: baseline ${Math.round(baseline / 1024)} MiB, after ${Math.round(after / 1024)} MiB, ${restarts} restart(s)`,
  );
  assert.ok(after <= baseline + 64 * 1024, `runtime RSS ${after} KiB vs baseline ${baseline} KiB`);
  assert.equal((await s.request('GET', '/api/v1/health', { auth: false })).status, 200);
});
