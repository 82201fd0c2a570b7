// Prelude part 2 (INSIDE the isolate): keeps every byte a plugin can allocate inside its memory cap, and removes
// the ways plugin code could run without the host entering the isolate.
//
// isolated-vm counts the V8 heap and ordinary ArrayBuffers against `memoryLimit`, but resizable/growable buffers
// and WebAssembly memories are reserved by V8 outside its allocator (measured: a 64 MB plugin grew one to 1 GiB).
// Each of those is charged at its maximum size as soon as it is created, with a "ballast": an ordinary
// ArrayBuffer of that size, which isolated-vm counts against the same limit but which costs no resident memory
// (calloc of a large block maps untouched zero pages; the runtime sets MALLOC_MMAP_THRESHOLD_ so it always does).
// Ballasts live as long as the context: the host retires a context that reserved any (see `reserved()`).
//
// Code may run only while the host has entered the isolate (runtime/worker/sandbox.ts): FinalizationRegistry callbacks,
// Atomics.waitAsync and asynchronous WebAssembly compilation would run later, untimed, from V8's own task queue
// (measured: a compile continuation spun for 1.5 s after its call). They are made synchronous or inert here.

export const GUARDS = String.raw`
const ABC = ArrayBuffer;
const SABC = SharedArrayBuffer;
const WA = G.WebAssembly;
const PAGE = 65536;
const capBytes = memoryMb * 1024 * 1024;
// A WebAssembly memory may grow to half the cap: it is reserved at its maximum, and the module's own heap and the
// plugin's JavaScript need the other half.
const capPages = Math.floor(capBytes / PAGE / 2);
const MathFloor = Math.floor;
const memoryErrors = new WeakSetC();
// A null-prototype holder: an index setter the plugin put on Array.prototype could otherwise swallow a ballast.
const ballast = { __proto__: null };
let ballasts = 0;
let reservedBytes = 0;
let memoryRefused = false;

function refuse(what) {
  memoryRefused = true;
  const e = new RangeErrorC(what + ' exceeds the plugin\'s memory limit of ' + memoryMb + ' MB');
  apply(WeakSetAdd, memoryErrors, [e]);
  return e;
}

/** Charges \`bytes\` against the isolate's memory limit for the rest of this context's life. */
function reserve(bytes, what) {
  if (!(bytes > 0)) return;
  if (bytes > capBytes) throw refuse(what);
  let b;
  try { b = new ABC(bytes); } catch { throw refuse(what); }
  ballast[ballasts++] = b;
  reservedBytes += bytes;
}

function toCount(v, what) {
  const n = +v;
  if (n !== n) return 0;
  if (n < 0 || n === Infinity) throw new RangeErrorC(what + ' must be a non-negative integer');
  return MathFloor(n);
}

function define(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: false, configurable: true });
}

/** Replaces a constructor on the global (and its prototype's \`constructor\`) by a guarded one. */
function replaceCtor(holder, name, Original, Guarded, statics) {
  ObjectDefineProperty(Guarded, 'name', { __proto__: null, value: name, configurable: true });
  ObjectDefineProperty(Guarded, 'length', { __proto__: null, value: Original.length, configurable: true });
  ObjectDefineProperty(Guarded, 'prototype', { __proto__: null, value: Original.prototype, writable: false, enumerable: false, configurable: false });
  define(Original.prototype, 'constructor', Guarded);
  for (const k of statics) {
    const d = ObjectGetOwnPropertyDescriptor(Original, k);
    if (d) ObjectDefineProperty(Guarded, k, d);
  }
  define(holder, name, Guarded);
}

function guardBuffer(name, Original) {
  function Guarded(length, options) {
    if (new.target === undefined) throw new TypeErrorC('Constructor ' + name + " requires 'new'");
    const max = options !== null && typeof options === 'object' ? options.maxByteLength : undefined;
    if (max === undefined) return construct(Original, [length], new.target);
    const maxByteLength = toCount(max, 'maxByteLength');
    reserve(maxByteLength, 'a resizable ' + name + ' of ' + maxByteLength + ' bytes');
    return construct(Original, [length, { __proto__: null, maxByteLength }], new.target);
  }
  replaceCtor(G, name, Original, Guarded, ['isView', Symbol.species]);
}
guardBuffer('ArrayBuffer', ABC);
if (typeof SABC === 'function') guardBuffer('SharedArrayBuffer', SABC);

// ── WebAssembly ─────────────────────────────────────────────────────────────
const U8 = Uint8Array;
const TypedArrayProto = ObjectGetPrototypeOf(U8.prototype);
const taBuffer = ObjectGetOwnPropertyDescriptor(TypedArrayProto, 'buffer').get;
const taOffset = ObjectGetOwnPropertyDescriptor(TypedArrayProto, 'byteOffset').get;
const taLength = ObjectGetOwnPropertyDescriptor(TypedArrayProto, 'byteLength').get;
const taSet = TypedArrayProto.set;
const abLength = ObjectGetOwnPropertyDescriptor(ABC.prototype, 'byteLength').get;
const sabLength = typeof SABC === 'function' ? ObjectGetOwnPropertyDescriptor(SABC.prototype, 'byteLength').get : undefined;
const dvBuffer = ObjectGetOwnPropertyDescriptor(DataView.prototype, 'buffer').get;
const dvOffset = ObjectGetOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get;
const dvLength = ObjectGetOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
const CompileErrorC = WA && WA.CompileError;

/** A view of our own fresh array (offset 0): never \`subarray\`, which asks the plugin-reachable species for its result. */
const len = (arr) => apply(taLength, arr, []);
const view = (arr, from, to) => new U8(apply(taBuffer, arr, []), from, to - from);

/** A private copy of a BufferSource, read through captured getters (no plugin getter, no change while we parse). */
function copyBytes(src) {
  let buffer, offset = 0, length;
  try { length = apply(taLength, src, []); buffer = apply(taBuffer, src, []); offset = apply(taOffset, src, []); } catch {
    try { length = apply(dvLength, src, []); buffer = apply(dvBuffer, src, []); offset = apply(dvOffset, src, []); } catch {
      try { length = apply(abLength, src, []); buffer = src; } catch {
        try { length = apply(sabLength, src, []); buffer = src; } catch { throw new TypeErrorC('WebAssembly: argument must be a buffer source'); }
      }
    }
  }
  const out = new U8(length);
  apply(taSet, out, [new U8(buffer, offset, length)]);
  return out;
}

function leb(bytes, at) {
  let value = 0, shift = 0, b;
  do {
    if (at.i >= len(bytes) || shift > 28) throw new CompileErrorC('WebAssembly: malformed LEB128 integer');
    b = bytes[at.i++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return value;
}
/** Bytes are written into typed arrays only: their indices never reach a prototype the plugin could rig. */
function encodeLeb(value, out, at) {
  do {
    let b = value % 128;
    value = MathFloor(value / 128);
    if (value > 0) b |= 0x80;
    out[at.i++] = b;
  } while (value > 0);
}

/**
 * Rewrites the module's memory section so that every memory it defines has a maximum within the cap (a module's
 * own memory.grow cannot be intercepted, its declared maximum bounds it). Returns the bytes and what one instance
 * reserves.
 */
function boundModule(src) {
  const bytes = copyBytes(src);
  const total = len(bytes);
  if (total < 8) return { bytes, reserve: 0 };
  const at = { i: 8 };
  while (at.i < total) {
    const start = at.i;
    const id = bytes[at.i++];
    const size = leb(bytes, at);
    const body = at.i;
    const end = body + size;
    if (end > total) break;
    if (id !== 5) { at.i = end; continue; }
    const count = leb(bytes, at);
    if (count > size) throw new CompileErrorC('WebAssembly: malformed memory section');
    const section = new U8(5 + count * 11);
    const w = { i: 0 };
    encodeLeb(count, section, w);
    let pages = 0;
    for (let m = 0; m < count; m++) {
      const flags = bytes[at.i++];
      if (flags > 3) throw refuse('a WebAssembly memory with 64-bit or custom-page limits');
      const min = leb(bytes, at);
      const declared = flags & 1 ? leb(bytes, at) : capPages;
      if (min > capPages) throw refuse('a WebAssembly memory of ' + min + ' pages');
      const max = declared < min ? min : declared < capPages ? declared : capPages;
      section[w.i++] = flags | 1;
      encodeLeb(min, section, w);
      encodeLeb(max, section, w);
      pages += max;
    }
    if (at.i !== end) throw new CompileErrorC('WebAssembly: malformed memory section');
    const head = new U8(6);
    const h = { i: 0 };
    head[h.i++] = 5;
    encodeLeb(w.i, head, h);
    const out = new U8(start + h.i + w.i + (total - end));
    apply(taSet, out, [view(bytes, 0, start)]);
    apply(taSet, out, [view(head, 0, h.i), start]);
    apply(taSet, out, [view(section, 0, w.i), start + h.i]);
    apply(taSet, out, [view(bytes, end, total), start + h.i + w.i]);
    return { bytes: out, reserve: pages * PAGE };
  }
  return { bytes, reserve: 0 };
}

if (WA && typeof WA === 'object') {
  const ModuleC = WA.Module;
  const InstanceC = WA.Instance;
  const MemoryC = WA.Memory;
  const ValidateC = WA.validate;
  const WeakMapC = WeakMap;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const perInstance = new WeakMapC();

  function Module(src) {
    if (new.target === undefined) throw new TypeErrorC("WebAssembly.Module must be invoked with 'new'");
    const bounded = boundModule(src);
    const module = construct(ModuleC, [bounded.bytes], new.target);
    apply(wmSet, perInstance, [module, bounded.reserve]);
    return module;
  }
  replaceCtor(WA, 'Module', ModuleC, Module, ['exports', 'imports', 'customSections']);

  function Instance(module, imports) {
    if (new.target === undefined) throw new TypeErrorC("WebAssembly.Instance must be invoked with 'new'");
    const bytes = apply(wmGet, perInstance, [module]);
    if (bytes === undefined) throw new TypeErrorC('WebAssembly.Instance(): Argument 0 must be a WebAssembly.Module');
    reserve(bytes, 'WebAssembly memory of ' + bytes + ' bytes');
    return construct(InstanceC, [module, imports], new.target);
  }
  replaceCtor(WA, 'Instance', InstanceC, Instance, []);

  function Memory(descriptor) {
    if (new.target === undefined) throw new TypeErrorC("WebAssembly.Memory must be invoked with 'new'");
    if (descriptor === null || typeof descriptor !== 'object') throw new TypeErrorC('WebAssembly.Memory(): Argument 0 must be a memory descriptor');
    if (descriptor.address !== undefined || descriptor.index !== undefined) throw refuse('a 64-bit WebAssembly memory');
    const initial = toCount(descriptor.initial, 'initial');
    const declared = descriptor.maximum;
    const maximum = declared === undefined ? capPages : toCount(declared, 'maximum');
    const shared = !!descriptor.shared;
    if (initial > capPages) throw refuse('a WebAssembly memory of ' + initial + ' pages');
    // Without a maximum a memory may grow to 4 GiB; here it grows up to the cap, then grow() fails as at any maximum.
    const bounded = maximum < capPages ? maximum : capPages;
    reserve((bounded < initial ? initial : bounded) * PAGE, 'a WebAssembly memory of ' + bounded + ' pages');
    return construct(MemoryC, [{ __proto__: null, initial, maximum: bounded, shared }], new.target);
  }
  replaceCtor(WA, 'Memory', MemoryC, Memory, []);

  // Synchronous under the hood: the promise is settled before the host's entry returns.
  define(WA, 'compile', function compile(src) {
    try { return resolved(new Module(src)); } catch (e) { return rejected(e); }
  });
  define(WA, 'instantiate', function instantiate(src, imports) {
    try {
      if (apply(wmGet, perInstance, [src]) !== undefined) return resolved(new Instance(src, imports));
      const module = new Module(src);
      return resolved({ module, instance: new Instance(module, imports) });
    } catch (e) {
      return rejected(e);
    }
  });
  define(WA, 'validate', function validate(src) {
    let bounded;
    try { bounded = boundModule(src); } catch (e) { if (e instanceof TypeErrorC) throw e; return false; }
    return ValidateC(bounded.bytes);
  });
  delete WA.compileStreaming;
  delete WA.instantiateStreaming;
}

// ── code that would run outside the host's entries ─────────────────────────
// Cleanup callbacks are never guaranteed to run (ECMA-262 9.13); here they never do.
class FinalizationRegistry {
  constructor(cleanup) {
    if (typeof cleanup !== 'function') throw new TypeErrorC('FinalizationRegistry: cleanup must be callable');
  }
  register(target) {
    if (target === null || (typeof target !== 'object' && typeof target !== 'function' && typeof target !== 'symbol')) throw new TypeErrorC('FinalizationRegistry.prototype.register: invalid target');
  }
  unregister() { return false; }
}
define(G, 'FinalizationRegistry', FinalizationRegistry);
if (typeof Atomics === 'object') delete Atomics.waitAsync;

function isMemoryError(e) {
  if (e !== null && typeof e === 'object' && apply(WeakSetHas, memoryErrors, [e])) return true;
  // isolated-vm's allocator refusing an ordinary ArrayBuffer (a typed array past the cap).
  if (!(e instanceof RangeErrorC)) return false;
  const d = ObjectGetOwnPropertyDescriptor(e, 'message');
  return d !== undefined && d.value === 'Array buffer allocation failed';
}
`;
