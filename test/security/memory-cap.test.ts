// Class 3 of issue 13: every byte a plugin can allocate is inside its cap (memory_mb 64 here): the heap, ordinary,
// resizable and growable shared buffers, WebAssembly memories created from JavaScript or defined by a module and
// grown from inside it, strings. Over the cap the call answers MEMORY_LIMIT_EXCEEDED (or the plugin catches a
// RangeError), and the runtime's RSS is back within 64 MiB of its baseline afterwards (within 10 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestResponse } from '../helper.ts';
import { ECHO, answersAgain, assertEnvelope, pause, plugin, rssMiB } from './sandbox-support.ts';

const MiB = 1024 * 1024;
// The timeout is only a backstop: every attack ends at the cap long before it, also on a loaded machine.
const SETTINGS = `export const settings = { timeout: 30, memory_mb: 64 };`;
// (memory (export "mem") 1) (func (export "grow") (param i32) (result i32) local.get 0 memory.grow): no maximum.
const GROWING_MODULE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 5, 3, 1, 0, 1, 7, 14, 2, 3, 109, 101, 109, 2, 0,
  4, 103, 114, 111, 119, 0, 0, 10, 8, 1, 6, 0, 32, 0, 64, 0, 11,
];
// The same with (memory 70000 70000): 4.3 GiB from the start.
const HUGE_MODULE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 5, 7, 1, 1, 240, 162, 4, 240, 162, 4, 7, 14, 2,
  3, 109, 101, 109, 2, 0, 4, 103, 114, 111, 119, 0, 0, 10, 8, 1, 6, 0, 32, 0, 64, 0, 11,
];

const memoryExceeded = (res: TestResponse) => {
  assert.equal(res.status, 500, res.text.slice(0, 300));
  assert.equal(res.body.data.code, 'MEMORY_LIMIT_EXCEEDED', res.text.slice(0, 300));
};
/** Either refused outright, or allowed only up to the cap (returns the bytes it got). */
const withinCap = (res: TestResponse) => {
  if (res.status === 500) return memoryExceeded(res);
  assert.equal(res.status, 200, res.text.slice(0, 300));
  assert.ok(res.body.data <= 64 * MiB, `got ${res.body.data} bytes`);
};

const ATTACKS: Record<string, { body: string; expect(res: TestResponse): void; alone?: boolean }> = {
  'resizable-1gib': {
    body: `const b = new ArrayBuffer(0, { maxByteLength: 1024 * 1024 * 1024 }); b.resize(b.maxByteLength); new Uint8Array(b).fill(1); return b.byteLength;`,
    expect: memoryExceeded,
  },
  'resizable-many': {
    body: `const keep = []; for (let i = 0; i < 64; i++) { const b = new ArrayBuffer(0, { maxByteLength: 16 * 1024 * 1024 }); b.resize(b.maxByteLength); new Uint8Array(b).fill(1); keep.push(b); } return keep.length * 16 * 1024 * 1024;`,
    expect: memoryExceeded,
  },
  'resizable-transfer': {
    body: `const keep = []; for (let i = 0; i < 8; i++) { const b = new ArrayBuffer(0, { maxByteLength: 16 * 1024 * 1024 }); b.resize(b.maxByteLength); new Uint8Array(b).fill(1); keep.push(b.transfer()); } return keep.length * 16 * 1024 * 1024;`,
    expect: memoryExceeded,
  },
  'growable-shared-1gib': {
    body: `const s = new SharedArrayBuffer(0, { maxByteLength: 1024 * 1024 * 1024 }); s.grow(s.maxByteLength); new Uint8Array(s).fill(1); return s.byteLength;`,
    expect: memoryExceeded,
  },
  'wasm-memory-grow-4gib': {
    body: `const m = new WebAssembly.Memory({ initial: 1 }); try { m.grow(65535); } catch {} let pages = 1; try { while (true) { m.grow(16); pages += 16; } } catch {} new Uint8Array(m.buffer).fill(1); return m.buffer.byteLength;`,
    expect: withinCap,
  },
  'wasm-memory-4gib-initial': {
    body: `const m = new WebAssembly.Memory({ initial: 65536, maximum: 65536 }); new Uint8Array(m.buffer).fill(1); return m.buffer.byteLength;`,
    expect: memoryExceeded,
  },
  'wasm-memories-many': {
    body: `const keep = []; for (let i = 0; i < 64; i++) { const m = new WebAssembly.Memory({ initial: 256, maximum: 256 }); new Uint8Array(m.buffer).fill(1); keep.push(m); } return keep.length * 256 * 65536;`,
    expect: memoryExceeded,
  },
  'wasm-module-grows-itself': {
    body: `const { instance } = await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(GROWING_MODULE)})); while (instance.exports.grow(16) !== -1); new Uint8Array(instance.exports.mem.buffer).fill(1); return instance.exports.mem.buffer.byteLength;`,
    expect: withinCap,
  },
  'wasm-module-huge': {
    body: `const m = new WebAssembly.Module(new Uint8Array(${JSON.stringify(HUGE_MODULE)})); const i = new WebAssembly.Instance(m); new Uint8Array(i.exports.mem.buffer).fill(1); return i.exports.mem.buffer.byteLength;`,
    expect: memoryExceeded,
  },
  'wasm-instances-many': {
    body: `const m = new WebAssembly.Module(new Uint8Array(${JSON.stringify(GROWING_MODULE)})); const keep = []; for (let i = 0; i < 100; i++) { const inst = new WebAssembly.Instance(m); while (inst.exports.grow(16) !== -1); new Uint8Array(inst.exports.mem.buffer).fill(1); keep.push(inst); } return keep.length;`,
    expect: memoryExceeded,
  },
  'typed-array-512mib': { body: `return new Uint8Array(512 * 1024 * 1024).length;`, expect: memoryExceeded },
  'shared-buffer-512mib': {
    body: `return new SharedArrayBuffer(512 * 1024 * 1024).byteLength;`,
    expect: memoryExceeded,
  },
  // V8 lets one large string past the heap limit until its next collection: the isolate's heap is checked as the
  // call ends (alone here: a call that ends while another runs in the same isolate is checked by a periodic sampler).
  'flat-string-300mb': {
    body: `const s = 'x'.repeat(300 * 1024 * 1024); return s.indexOf('y');`,
    expect: memoryExceeded,
    alone: true,
  },
};

test('every byte a plugin allocates is inside its cap, and the runtime returns to its baseline', async (t) => {
  const plugins: Record<string, string> = { 'echo.ts': ECHO };
  for (const [id, a] of Object.entries(ATTACKS)) plugins[`${id}.ts`] = plugin(a.body, SETTINGS);
  const s = await build(t, { plugins });
  for (let i = 0; i < 20; i++) await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } });
  const baseline = rssMiB(s.app.runtime.pid);
  let peak = baseline;
  for (const [id, a] of Object.entries(ATTACKS)) {
    // Three at once: the old runtime let each reserve past the cap (3 x 1 GiB measured).
    const call = () => s.request('POST', `/api/v1/plugins/${id}/call`, { body: {} });
    const answers = a.alone ? [await call(), await call()] : await Promise.all([call(), call(), call()]);
    for (const res of answers) {
      assertEnvelope(res, id);
      a.expect(res);
    }
    await answersAgain(s);
    const rss = rssMiB(s.app.runtime.pid);
    peak = Math.max(peak, rss);
    t.diagnostic(
      `${id}: ${answers.map((r) => r.body.data?.code ?? r.body.data).join(', ')}; runtime RSS ${rss.toFixed(0)} MiB`,
    );
  }
  for (let i = 0; i < 20; i++) await s.request('POST', '/api/v1/plugins/echo/call', { body: { params: i } });
  // An isolate over its cap is disposed as its call ends; on a loaded machine its pages can take a moment more to go
  // back to the system (seen: 268 MiB right after, 119 half a second later). Back within 10 s, or it is a leak.
  let after = rssMiB(s.app.runtime.pid);
  for (
    const until = Date.now() + 10_000;
    after > baseline + 64 && Date.now() < until;
    after = rssMiB(s.app.runtime.pid)
  )
    await pause(250);
  t.diagnostic(
    `runtime RSS: baseline ${baseline.toFixed(0)} MiB, peak after an attack ${peak.toFixed(0)} MiB, after ${after.toFixed(0)} MiB`,
  );
  assert.ok(after <= baseline + 64, `runtime RSS ${after.toFixed(0)} MiB vs baseline ${baseline.toFixed(0)} MiB`);
});

// The heap is read in full as a call ends unless the isolate's CPU time since the last read could not have grown it
// past the limit (runtime/worker/generations.ts heapWithinLimit). Calls that allocate little come first, so the
// large one is judged by that bound and not by a first read.
test('a string past the heap limit is refused after calls that allocated little', async (t) => {
  const body = `if (context.params && context.params.warm) return 0; const s = 'x'.repeat(300 * 1024 * 1024); return s.indexOf('y');`;
  const s = await build(t, { plugins: { 'grow.ts': plugin(body, SETTINGS) } });
  for (let i = 0; i < 10; i++) {
    const warm = await s.request('POST', '/api/v1/plugins/grow/call', { body: { params: { warm: true } } });
    assert.equal(warm.status, 200, warm.text);
  }
  memoryExceeded(await s.request('POST', '/api/v1/plugins/grow/call', { body: {} }));
});
