// The escape corpus: every known way out of a JavaScript sandbox, each as a real plugin called through the
// real HTTP API. Each attempt reports what it reached; a host capability found is also used (write a canary
// file, read API_KEY) so that a false negative in the detector still shows. Documented in README.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEY, build, type TestResponse, type TestServer } from '../helper.ts';
import { rawRequest } from './support.ts';

const CANARY = path.join(tmpdir(), `relaybox-escape-canary-${process.pid}`);
const KIT = readFileSync(new URL('../fixtures/escapes/probe-kit.js', import.meta.url), 'utf8').replace(
  '__CANARY__',
  JSON.stringify(CANARY),
);
const WASM_LOOP = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 9, 1, 7, 0, 3, 64, 12, 0, 11,
  11,
];

interface Attempt {
  /** Plugin id, also the row of the README table. */
  id: string;
  /** The handler (and settings) source; the probe kit is prepended. */
  source: string;
  /** Default: 200, `found` and `leaks` empty. */
  expect?: (res: TestResponse) => void;
  body?: unknown;
}

const handler = (code: string, settings = '') => `${settings}\nexport async function handler(context) {\n${code}\n}\n`;
const held = (res: TestResponse, label: string) => {
  assert.equal(res.status, 200, `${label}: ${res.text.slice(0, 300)}`);
  assert.deepEqual(res.body.data.found, [], `${label} reached a host capability`);
  assert.deepEqual(res.body.data.leaks, [], `${label} read a secret`);
};

const ATTEMPTS: Attempt[] = [
  {
    id: 'host-globals',
    source: handler(
      `for (const k of ['process', 'require', 'module', 'exports', 'global', 'Buffer', 'fetch', 'setTimeout', 'setImmediate', 'queueMicrotask', 'ivm', '_ivm', '$0', '$1', 'host', 'host_', '__dirname']) attempt('globalThis.' + k, () => globalThis[k]); check('globalThis', globalThis); return result({ names: Object.getOwnPropertyNames(globalThis).filter((k) => /^(process|require|module|ivm|_ivm|host|Buffer|global)$|\\$/.test(k)) });`,
    ),
    expect: (r) => {
      held(r, 'host-globals');
      assert.deepEqual(r.body.data.names, []);
    },
  },
  {
    id: 'function-constructor',
    source: handler(
      `attempt('Function(process)', () => Function(PROCESS)()); attempt('Function(this)', () => Function('return this')()); attempt('AsyncFunction', async () => 0); attempt('async ctor', () => (async () => {}).constructor(PROCESS)); attempt('generator ctor', () => (function* () {}).constructor(PROCESS)().next().value); return result();`,
    ),
  },
  {
    id: 'eval',
    source: handler(
      `attempt('eval', () => eval(PROCESS.replace('return ', ''))); attempt('indirect eval', () => (0, eval)('this')); attempt('indirect eval process', () => (0, eval)('typeof process === "undefined" ? undefined : process')); return result();`,
    ),
  },
  {
    id: 'dynamic-import',
    source: handler(
      `const r = {}; for (const m of ['node:fs', 'fs', 'child_process', 'data:text/javascript,export default globalThis.process']) { try { const ns = await (0, eval)('import(' + JSON.stringify(m) + ')'); check('import ' + m, ns); r[m] = 'loaded'; } catch (e) { r[m] = 'refused'; } } try { const ns = await new Function('return import("node:fs")')(); check('Function import', ns); r.fn = 'loaded'; } catch { r.fn = 'refused'; } return result({ r });`,
    ),
    expect: (r) => {
      held(r, 'dynamic-import');
      for (const v of Object.values(r.body.data.r)) assert.equal(v, 'refused');
    },
  },
  {
    id: 'context-chains',
    source: handler(
      `for (const k of ['params', 'headers', 'query', 'config', 'route', 'method', 'requestId']) chains('context.' + k, context[k]); chains('context', context); return result();`,
    ),
    body: { params: { a: [1], b: { c: 'd' } } },
  },
  {
    id: 'api-chains',
    source: handler(
      `chains('api', context.api); chains('api.useRelayer', context.api.useRelayer); chains('api.transactionWait', context.api.transactionWait); const r = context.api.useRelayer('sepolia-example'); chains('relayer', r); for (const k of Object.keys(r)) chains('relayer.' + k, r[k]); const rec = await r.getRelayer(); chains('relayer record', rec); return result();`,
    ),
  },
  {
    id: 'kv-chains',
    source: handler(
      `const kv = context.kv; chains('kv', kv); for (const k of Object.keys(kv)) chains('kv.' + k, kv[k]); await kv.set('k', { a: 1 }); chains('kv value', await kv.get('k')); return result();`,
    ),
  },
  {
    id: 'console-chains',
    source: handler(
      `chains('console', console); for (const k of Object.keys(console)) chains('console.' + k, console[k]); console.log({ toString() { check('console this', this); return 'x'; }, toJSON() { callerChain('console toJSON', arguments.callee); framesOf('console toJSON'); return 1; } }); return result();`,
    ),
  },
  {
    id: 'host-promise-chains',
    source: handler(
      `const p = context.kv.get('x'); chains('kv promise', p); chains('kv promise.then', p.then); const q = context.api.useRelayer('sepolia-example').getRelayer(); chains('api promise', q); await p; await q; return result();`,
    ),
  },
  {
    id: 'host-error-chains',
    source: handler(
      `const r = context.api.useRelayer('sepolia-example'); await attemptAsync('bad send', () => r.sendTransaction({ to: 'nope', value: -1 })); await attemptAsync('unknown relayer', () => context.api.useRelayer('nope').getRelayer()); await attemptAsync('bad kv key', () => context.kv.get('bad key!')); await attemptAsync('bad ttl', () => context.kv.set('k', 1, { ttlSec: -1 })); await attemptAsync('missing tx', () => r.getTransaction({ transactionId: 'nope' })); try { await context.kv.get('bad key!'); } catch (e) { framesOf('kv error'); return result({ stackMentionsHost: /node:|runtime\\/|\\/work\\//.test(String(e.stack)) }); } return result();`,
    ),
    expect: (r) => {
      held(r, 'host-error-chains');
      assert.equal(r.body.data.stackMentionsHost, false, 'a host error shows no host stack');
    },
  },
  {
    id: 'prepare-stack-trace',
    source: handler(
      `Error.prepareStackTrace = (e, frames) => { frames.forEach((f, i) => { check('pst this ' + i, f.getThis()); check('pst fn ' + i, f.getFunction()); }); return 'x'; }; try { null.x; } catch (e) { e.stack; } await context.kv.get('x'); framesOf('after host await'); try { await context.kv.get('bad key!'); } catch (e) { e.stack; } delete Error.prepareStackTrace; return result();`,
    ),
  },
  {
    id: 'capture-stack-trace',
    source: handler(
      `const o = {}; Error.stackTraceLimit = Infinity; Error.prepareStackTrace = (e, frames) => frames; Error.captureStackTrace(o); for (const f of o.stack) { check('cst this', f.getThis()); check('cst fn', f.getFunction()); } delete Error.prepareStackTrace; Error.stackTraceLimit = 10; return result();`,
    ),
  },
  {
    id: 'frames-inside-host-call',
    source: handler(
      `for (const k of ['reference', 'copy', 'externalCopy', 'promise', 'timeout', 'arguments', 'result']) Object.defineProperty(Object.prototype, k, { configurable: true, get() { check('option getter this ' + k, this); framesOf('inside host call ' + k); callerChain('option getter ' + k, arguments.callee); return undefined; } }); let got; try { got = await context.kv.get('x'); } catch (e) { chains('option error', e); } for (const k of ['reference', 'copy', 'externalCopy', 'promise', 'timeout', 'arguments', 'result']) delete Object.prototype[k]; return result({ got: got === undefined ? 'failed' : got });`,
    ),
    expect: (r) => {
      held(r, 'frames-inside-host-call');
      assert.equal(r.body.data.got, null, 'inherited option getters do not change how the host call runs');
    },
  },
  {
    id: 'caller-chain',
    source: handler(
      `function sloppy() { callerChain('sloppy', sloppy); framesOf('sloppy'); } sloppy(); [1].map(function () { callerChain('map cb', arguments.callee); }); await context.kv.withLock('l', function () { callerChain('withLock fn', arguments.callee); framesOf('withLock fn'); return 1; }); return result();`,
    ),
  },
  {
    id: 'getter-on-result',
    source: handler(
      `return { get found() { check('getter this', this); callerChain('result getter', Object.getOwnPropertyDescriptor(this, 'found').get); framesOf('result getter'); check('getter global', globalThis); return found; }, leaks };`,
    ),
  },
  {
    id: 'tojson-on-result',
    source: handler(
      `return { toJSON(key) { check('toJSON this', this); callerChain('toJSON', arguments.callee); framesOf('toJSON'); return { found, leaks, key }; } };`,
    ),
    expect: (r) => {
      held(r, 'tojson-on-result');
      assert.equal(r.body.data.key, '');
    },
  },
  {
    id: 'proxy-result',
    source: handler(
      `const t = { found, leaks, x: 1 }; let inside = false; return new Proxy(t, { get(o, k, recv) { if (!inside) { inside = true; check('proxy recv', recv); framesOf('proxy get'); inside = false; } return Reflect.get(o, k); }, ownKeys(o) { callerChain('proxy ownKeys', arguments.callee); return Reflect.ownKeys(o); }, getOwnPropertyDescriptor(o, k) { return Reflect.getOwnPropertyDescriptor(o, k); } });`,
    ),
    expect: (r) => {
      held(r, 'proxy-result');
      assert.equal(r.body.data.x, 1);
    },
  },
  {
    id: 'thenable-result',
    source: handler(
      `return { then(resolve, reject) { chains('resolve', resolve); chains('reject', reject); callerChain('then', arguments.callee); framesOf('then'); resolve(result({ via: 'thenable' })); } };`,
    ),
    expect: (r) => {
      held(r, 'thenable-result');
      assert.equal(r.body.data.via, 'thenable');
    },
  },
  {
    id: 'promise-then-override',
    source: handler(
      `const then = Promise.prototype.then; Promise.prototype.then = function (a, b) { check('then this', this); check('then a', a); check('then b', b); chains('then a', a); return then.call(this, a, b); }; await context.kv.set('k', 1); const v = await context.kv.get('k'); Promise.prototype.then = then; return result({ v });`,
    ),
    expect: (r) => {
      held(r, 'promise-then-override');
      assert.equal(r.body.data.v, 1);
    },
  },
  {
    id: 'symbol-species',
    source: handler(
      `class EvilArray extends Array { static get [Symbol.species]() { check('species this', this); framesOf('array species'); return Array; } } const a = EvilArray.from([1, 2]).map((x) => x * 2); class EvilPromise extends Promise { static get [Symbol.species]() { framesOf('promise species'); return Promise; } } Object.defineProperty(Promise, Symbol.species, { configurable: true, get() { framesOf('Promise species'); return EvilPromise; } }); await context.kv.get('x'); return EvilPromise.resolve(result({ a: [...a] }));`,
    ),
    expect: (r) => {
      held(r, 'symbol-species');
      assert.deepEqual(r.body.data.a, [2, 4]);
    },
  },
  {
    id: 'builtin-prototype-tampering',
    source: handler(
      `const keep = {}; for (const k of ['push', 'map', 'join', 'slice', 'forEach', 'shift']) { keep[k] = Array.prototype[k]; } Array.prototype.push = function (...xs) { for (const x of xs) check('push arg', x); return keep.push.apply(this, xs); }; Array.prototype.join = function () { check('join this', this); return keep.join.apply(this, arguments); }; for (const k of ['ok', 'value', 'error', 'code', 'status', 'details', 'message', 'logs', 'then', 'toJSON']) Object.defineProperty(Object.prototype, k, { __proto__: null, configurable: true, get() { check('proto getter ' + k, this); return undefined; }, set(v) { check('proto setter ' + k, v); } }); let v; try { await context.kv.set('k', 2); v = await context.kv.get('k'); } catch (e) { v = 'failed'; } try { await context.kv.get('bad key!'); } catch (e) { chains('tampered error', e); } for (const k of ['ok', 'value', 'error', 'code', 'status', 'details', 'message', 'logs', 'then', 'toJSON']) delete Object.prototype[k]; Object.assign(Array.prototype, keep); return result({ v });`,
    ),
    expect: (r) => {
      held(r, 'builtin-prototype-tampering');
      assert.equal(r.body.data.v, 2);
    },
  },
  {
    id: 'json-override',
    source: handler(
      `JSON.stringify = () => '{"hacked":true}'; JSON.parse = () => ({ ok: true, value: 'hacked' }); Object.prototype.toJSON = undefined; const v = await context.kv.get('absent'); return { found, leaks, v, n: 1n, u: undefined };`,
      `export const settings = { emit_logs: true };`,
    ),
    expect: (r) => {
      held(r, 'json-override');
      assert.deepEqual(r.body.data, { found: [], leaks: [], v: null, n: '1', u: null });
    },
  },
  {
    id: 'proto-keys-in-result',
    source: handler(
      `const o = JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"found":[],"leaks":[]}'); return o;`,
    ),
    expect: (r) => {
      assert.equal(r.status, 200);
      assert.ok(Object.hasOwn(r.body.data, '__proto__'), 'the key stays plain data');
      assert.equal(Object.getOwnPropertyDescriptor(r.body.data, '__proto__')?.value.polluted, 'yes');
    },
  },
  {
    id: 'proto-keys-in-params',
    source: handler(
      `const p = context.params; return result({ own: Object.hasOwn(p, '__proto__'), ctor: typeof p.constructor, isolatePolluted: ({}).polluted ?? null, query: Object.keys(context.query), header: context.headers['__proto__'] ?? null });`,
    ),
    body: '{"params":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}',
    expect: (r) => {
      if (r.status === 400) return;
      held(r, 'proto-keys-in-params');
      assert.equal(r.body.data.isolatePolluted, null);
    },
  },
  {
    id: 'proto-keys-in-error-details',
    source:
      `import { pluginError } from '@openzeppelin/relayer-sdk';\n` +
      handler(
        `throw pluginError('polluting', { code: 'X', status: 422, details: JSON.parse('{"__proto__":{"polluted":"yes"},"nested":{"__proto__":{"polluted":"yes"}}}') });`,
      ),
    expect: (r) => {
      assert.equal(r.status, 422);
      assert.ok(Object.hasOwn(r.body.data.details, '__proto__'));
    },
  },
  {
    id: 'proto-keys-in-kv',
    source: handler(
      `const kv = context.kv; await kv.set('__proto__', JSON.parse('{"__proto__":{"polluted":"yes"}}')); await kv.set('constructor', { prototype: { polluted: 'yes' } }); const v = await kv.get('__proto__'); const keys = await kv.listKeys('*'); await kv.clear(); return result({ own: Object.hasOwn(v, '__proto__'), keys, isolatePolluted: ({}).polluted ?? null });`,
    ),
    expect: (r) => {
      held(r, 'proto-keys-in-kv');
      assert.equal(r.body.data.own, true);
      assert.deepEqual(r.body.data.keys, ['__proto__', 'constructor']);
      assert.equal(r.body.data.isolatePolluted, null);
    },
  },
  {
    id: 'shared-array-buffer-atomics-wait',
    source: handler(
      `const sab = new SharedArrayBuffer(16); const ia = new Int32Array(sab); let r; try { r = Atomics.wait(ia, 0, 0); } catch (e) { r = 'threw: ' + e.message; } return result({ r });`,
      `export const settings = { timeout: 0.5 };`,
    ),
    expect: (r) => {
      if (r.status === 200) {
        held(r, 'sab');
        assert.match(String(r.body.data.r), /threw/);
        return;
      }
      assert.equal(r.status, 504, r.text);
      assert.equal(r.body.data.code, 'TIMEOUT');
    },
  },
  {
    id: 'webassembly-infinite-loop',
    source: handler(
      `const m = new WebAssembly.Module(new Uint8Array(${JSON.stringify(WASM_LOOP)})); const i = new WebAssembly.Instance(m, {}); i.exports.f(); return result();`,
      `export const settings = { timeout: 0.5 };`,
    ),
    expect: (r) => {
      assert.equal(r.status, 504, r.text);
      assert.equal(r.body.data.code, 'TIMEOUT');
    },
  },
  {
    id: 'webassembly-async-infinite-loop',
    source: handler(
      `const { instance } = await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(WASM_LOOP)})); instance.exports.f(); return result();`,
      `export const settings = { timeout: 0.5 };`,
    ),
    expect: (r) => {
      assert.ok(r.status === 504 || r.status === 500, r.text);
      if (r.status === 504) assert.equal(r.body.data.code, 'TIMEOUT');
    },
  },
  {
    id: 'reachability-walk',
    source: handler(
      `const n = reach([['globalThis', globalThis], ['context', context], ['console', console], ['relayer', context.api.useRelayer('x')], ['kv promise', context.kv.get('x')]], 20000); return result({ n });`,
    ),
    expect: (r) => {
      held(r, 'reachability-walk');
      assert.ok(r.body.data.n > 500, `walked ${r.body.data.n} objects`);
    },
  },
  {
    id: 'relayer-id-traversal',
    source: handler(
      `const codes = {}; for (const id of ['../x', '../../../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', 'sepolia-example/../x', '/etc/passwd', '__proto__', 'constructor', 'toString', '', 'sepolia-example\\u0000']) { try { await context.api.useRelayer(id).getRelayer(); codes[id] = 'FOUND'; } catch (e) { codes[id] = e.code; } } return result({ codes });`,
    ),
    expect: (r) => {
      held(r, 'relayer-id-traversal');
      for (const [id, code] of Object.entries(r.body.data.codes))
        assert.ok(code === 'RELAYER_NOT_FOUND' || code === 'VALIDATION_FAILED', `${id}: ${code}`);
    },
  },
  {
    id: 'function-prototype-tampering',
    source: handler(
      `const { call, apply, bind } = Function.prototype; Function.prototype.call = function (...a) { check('call this', this); for (const x of a) check('call arg', x); return Reflect.apply(call, this, a); }; Function.prototype.apply = function (t, a) { check('apply this', this); check('apply t', t); return Reflect.apply(apply, this, [t, a]); }; const saved = Reflect.apply; Reflect.apply = function (f, t, a) { check('Reflect.apply f', f); check('Reflect.apply t', t); for (const x of a || []) check('Reflect.apply arg', x); return saved(f, t, a); }; const v = await context.kv.exists('x'); Reflect.apply = saved; Object.assign(Function.prototype, { call, apply, bind }); return result({ v });`,
    ),
    expect: (r) => {
      held(r, 'function-prototype-tampering');
      assert.equal(r.body.data.v, false);
    },
  },
  {
    id: 'log-limit-bypass-via-array-push',
    source: handler(
      `const big = 'x'.repeat(4e6); const push = Array.prototype.push; Array.prototype.push = function (v) { this[this.length] = { level: 'log', message: big }; return this.length; }; console.log('a'); console.log('b'); Array.prototype.push = push; return result();`,
      `export const settings = { emit_logs: true };`,
    ),
    expect: (r) => {
      held(r, 'log-limit-bypass');
      assert.ok(r.text.length < 200 * 1024, `logs came out at ${r.text.length} bytes`);
    },
  },
  {
    id: 'error-limit-bypass-via-string-slice',
    source: handler(
      `const big = 'y'.repeat(4e6); String.prototype.slice = function () { return big; }; String.prototype.trim = function () { return big; }; throw new Error('z'.repeat(5000));`,
    ),
    expect: (r) => {
      assert.equal(r.status, 500);
      assert.ok(r.text.length < 64 * 1024, `error came out at ${r.text.length} bytes`);
    },
  },
  {
    id: 'legacy-two-argument-handler',
    source: `${''}export async function handler(api, params) { chains('legacy api', api); chains('legacy params', params); callerChain('legacy', arguments.callee); return result(); }`,
  },
];

/** The host (this test process runs the HTTP app) must come out of every attempt unchanged. */
function assertHostIntact(label: string): void {
  assert.equal(({} as any).polluted, undefined, `${label}: host Object.prototype polluted`);
  assert.equal((Object.prototype as any).toJSON, undefined, label);
  assert.equal(JSON.stringify({ a: [1] }), '{"a":[1]}', label);
  assert.equal(typeof (Array.prototype as any).polluted, 'undefined', label);
  assert.equal(existsSync(CANARY), false, `${label}: a plugin wrote the canary file`);
}

async function assertServing(s: TestServer, label: string): Promise<void> {
  const health = await s.request('GET', '/api/v1/health', { auth: false });
  assert.equal(health.status, 200, label);
  const echo = await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: { n: 1 } } });
  assert.equal(echo.status, 200, `${label}: ${echo.text}`);
  // A fresh envelope has exactly its own keys: nothing leaked onto the host's Object.prototype.
  assert.deepEqual(Object.keys(echo.body), ['success', 'data', 'error'], label);
  assert.deepEqual(echo.body.data, { n: 1 }, label);
}

test('every escape attempt in the corpus is held, and the service keeps serving', async (t) => {
  const plugins: Record<string, string> = { 'echo.ts': `export async function handler(c) { return c.params; }` };
  for (const a of ATTEMPTS) plugins[`${a.id}.js`] = `${KIT}\n${a.source}`;
  const s = await build(t, { plugins });
  assert.ok(ATTEMPTS.length >= 30, `${ATTEMPTS.length} attempts`);
  for (let i = 0; i < ATTEMPTS.length; i += 8) {
    const batch = ATTEMPTS.slice(i, i + 8);
    // Twice: the first call loads the module, the second runs in a warm context the first may have tampered with.
    for (const round of [1, 2]) {
      const answers = await Promise.all(
        batch.map((a) =>
          typeof a.body === 'string'
            ? s.request('POST', `/api/v1/plugins/${a.id}/call?__proto__=x&constructor=y`, {
                rawBody: a.body,
                headers: { 'content-type': 'application/json', __proto__: 'polluted' } as Record<string, string>,
              })
            : s.request('POST', `/api/v1/plugins/${a.id}/call`, { body: a.body ?? {} }),
        ),
      );
      batch.forEach((a, j) => {
        const res = answers[j]!;
        assert.doesNotMatch(res.text, new RegExp(API_KEY), `${a.id}: the API key leaked`);
        (a.expect ?? ((r) => held(r, a.id)))(res);
        assertHostIntact(`${a.id} round ${round}`);
      });
    }
    await assertServing(s, `after batch ${i / 8 + 1}`);
  }
  t.diagnostic(`${ATTEMPTS.length} attempts, all held`);
});

test('the probe kit recognises a host capability when it sees one (positive control)', () => {
  const isHost = new Function(`${KIT}\nreturn isHost;`)() as (x: unknown) => boolean;
  assert.equal(isHost(globalThis), true);
  assert.equal(isHost(process), true);
  assert.equal(isHost({ a: 1 }), false);
  assert.equal(isHost(JSON), false);
});

test('a plugin cannot see another plugin’s globals or KV namespace', async (t) => {
  const writer = `export async function handler({ kv }) { globalThis.secret = 'w'; Object.prototype.polluted = 'w'; Array.prototype.evil = 1; JSON.parse = () => 'hacked'; await kv.set('mine', 'w-value'); return await kv.listKeys('*'); }`;
  const reader = `export async function handler({ kv }) { return { secret: globalThis.secret ?? null, polluted: ({}).polluted ?? null, evil: [].evil ?? null, parse: JSON.parse('1'), mine: await kv.get('mine'), keys: await kv.listKeys('*'), exists: await kv.exists('mine') }; }`;
  const s = await build(t, { plugins: { 'writer.js': writer, 'reader.js': reader } });
  for (let i = 0; i < 3; i++) {
    assert.deepEqual((await s.request('POST', '/api/v1/plugins/writer/call', { body: {} })).body.data, ['mine']);
    const res = await s.request('POST', '/api/v1/plugins/reader/call', { body: {} });
    assert.deepEqual(res.body.data, {
      secret: null,
      polluted: null,
      evil: null,
      parse: 1,
      mine: null,
      keys: [],
      exists: false,
    });
  }
  assertHostIntact('two plugins');
});

test('plugin ids that are paths never reach the file system', async (t) => {
  const s = await build(t, { plugins: { 'echo.ts': `export async function handler(c) { return c.params; }` } });
  const paths = [
    '/api/v1/plugins/..%2F..%2Fetc%2Fpasswd/call',
    '/api/v1/plugins/%2e%2e/call',
    '/api/v1/plugins/%2e%2e%2f%2e%2e%2fetc%2fpasswd/call',
    '/api/v1/plugins/..%5C..%5Cetc%5Cpasswd/call',
    '/api/v1/plugins/%2Fetc%2Fpasswd/call',
    '/api/v1/plugins/echo%00/call',
    '/api/v1/plugins/__proto__/call',
    '/api/v1/plugins/constructor/call',
    '/api/v1/plugins/echo.ts/call',
    '/api/v1/plugins/..%2Fecho/call',
  ];
  for (const p of paths) {
    const res = await rawRequest(
      s.url,
      'POST',
      p,
      [
        ['Authorization', `Bearer ${API_KEY}`],
        ['Content-Type', 'application/json'],
      ],
      '{}',
    );
    assert.ok(res.status >= 400 && res.status < 500, `${p}: ${res.status} ${res.text.slice(0, 200)}`);
    assert.equal(res.body?.success, false, p);
    assert.doesNotMatch(res.text, /root:|export async function/, `${p}: file content leaked`);
  }
  await assertServing(s, 'after path ids');
});

test('a plugin that imports fs or child_process does not build', async (t) => {
  const sources: Record<string, string> = {
    'imp-fs.ts': `import { readFileSync } from 'fs'; export async function handler() { return readFileSync('/etc/passwd', 'utf8'); }`,
    'imp-cp.ts': `import { execSync } from 'node:child_process'; export async function handler() { return String(execSync('id')); }`,
    'imp-worker.ts': `import { Worker } from 'node:worker_threads'; export async function handler() { return typeof Worker; }`,
    'req-cp.cjs': `const cp = require('child_process'); exports.handler = async () => String(cp.execSync('id'));`,
    'dyn-fs.ts': `export async function handler() { const fs = await import('node:fs'); return fs.readFileSync('/etc/passwd', 'utf8'); }`,
  };
  const s = await build(t, {
    plugins: { ...sources, 'echo.ts': `export async function handler(c) { return c.params; }` },
  });
  for (const file of Object.keys(sources)) {
    const id = file.replace(/\.[a-z]+$/, '');
    const res = await s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
    assert.equal(res.status, 500, `${id}: ${res.text}`);
    assert.equal(res.body.data.code, 'COMPILE_ERROR', id);
    assert.match(res.body.error, /built-in module/, id);
  }
  await assertServing(s, 'after build errors');
});
