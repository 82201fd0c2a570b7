// Prelude part (INSIDE the isolate): the pure web platform basics, implemented here because V8 alone has none of
// them: TextEncoder/TextDecoder (UTF-8), atob/btoa, structuredClone, Event/EventTarget, AbortController/AbortSignal,
// DOMException. None of them talks to the host. The byte helpers (utf8, base64) also serve fetch and crypto.

export const WEB = String.raw`
const U16 = Uint16Array;
const fromCharCode = String.fromCharCode;
const charCodeAt = String.prototype.charCodeAt;
const MapC = Map;
const SetC = Set;
const MapGet = Map.prototype.get;
const MapSet = Map.prototype.set;
const MapHas = Map.prototype.has;
const ObjectKeys = Object.keys;

/** Code units to a string, in chunks (one apply per 8192 units keeps the argument list bounded). */
function unitsToString(units, count) {
  let out = '';
  for (let i = 0; i < count; i += 8192) out += apply(fromCharCode, null, new U16(apply(taBuffer, units, []), i * 2, (count - i < 8192 ? count - i : 8192)));
  return out;
}

function utf8Encode(input) {
  const s = StringC(input);
  const out = new U8(s.length * 3);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = apply(charCodeAt, s, [i]);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = apply(charCodeAt, s, [i + 1]);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) { out[n++] = 0xc0 | (c >> 6); out[n++] = 0x80 | (c & 63); }
    else if (c < 0x10000) { out[n++] = 0xe0 | (c >> 12); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
    else { out[n++] = 0xf0 | (c >> 18); out[n++] = 0x80 | ((c >> 12) & 63); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
  }
  const exact = new U8(n);
  apply(taSet, exact, [new U8(apply(taBuffer, out, []), 0, n)]);
  return exact;
}

/** UTF-8 to a string; malformed sequences become U+FFFD, or throw with \`fatal\`. */
function utf8Decode(bytes, fatal, keepBom) {
  const n = len(bytes);
  const units = new U16(n + 1);
  let u = 0;
  let i = !keepBom && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < n) {
    const b = bytes[i];
    let c = -1, need = 0, min = 0;
    if (b < 0x80) { units[u++] = b; i++; continue; }
    if (b >= 0xc2 && b <= 0xdf) { c = b & 31; need = 1; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { c = b & 15; need = 2; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { c = b & 7; need = 3; min = 0x10000; }
    let j = 1;
    for (; c >= 0 && j <= need; j++) {
      const x = i + j < n ? bytes[i + j] : -1;
      if ((x & 0xc0) !== 0x80 || x < 0) { c = -1; break; }
      c = (c << 6) | (x & 63);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
      if (fatal) throw new TypeErrorC('The encoded data was not valid for encoding utf-8');
      units[u++] = 0xfffd;
      i += j > 1 ? j - 1 : 1;
      continue;
    }
    i += need + 1;
    if (c >= 0x10000) { c -= 0x10000; units[u++] = 0xd800 + (c >> 10); units[u++] = 0xdc00 + (c & 1023); }
    else units[u++] = c;
  }
  return unitsToString(units, u);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new U8(256);
for (let i = 0; i < 256; i++) B64_INDEX[i] = 255;
for (let i = 0; i < 64; i++) B64_INDEX[apply(charCodeAt, B64, [i])] = i;
B64_INDEX[45] = 62; B64_INDEX[95] = 63;

function base64Encode(bytes) {
  const n = len(bytes);
  const units = new U16(((n + 2) / 3 | 0) * 4);
  let u = 0;
  for (let i = 0; i < n; i += 3) {
    const x = (bytes[i] << 16) | ((i + 1 < n ? bytes[i + 1] : 0) << 8) | (i + 2 < n ? bytes[i + 2] : 0);
    units[u++] = apply(charCodeAt, B64, [x >> 18]);
    units[u++] = apply(charCodeAt, B64, [(x >> 12) & 63]);
    units[u++] = i + 1 < n ? apply(charCodeAt, B64, [(x >> 6) & 63]) : 61;
    units[u++] = i + 2 < n ? apply(charCodeAt, B64, [x & 63]) : 61;
  }
  return unitsToString(units, u);
}

/** Forgiving base64 (whitespace skipped, padding optional, url-safe letters accepted); null when malformed. */
function base64Decode(input) {
  const s = StringC(input);
  const out = new U8((s.length * 3 >> 2) + 3);
  let acc = 0, bits = 0, n = 0, pad = 0;
  for (let i = 0; i < s.length; i++) {
    const c = apply(charCodeAt, s, [i]);
    if (c === 32 || c === 9 || c === 10 || c === 12 || c === 13) continue;
    if (c === 61) { pad++; continue; }
    const v = c < 256 ? B64_INDEX[c] : 255;
    if (v === 255 || pad) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) { bits -= 8; out[n++] = (acc >> bits) & 255; }
  }
  if (bits >= 6 || pad > 2) return null;
  const exact = new U8(n);
  apply(taSet, exact, [new U8(apply(taBuffer, out, []), 0, n)]);
  return exact;
}

/** Bytes of a BufferSource (ArrayBuffer, typed array, DataView) as a private copy. */
const toBytes = copyBytes;

class DOMException extends ErrorC {
  constructor(message, name) {
    super(message === undefined ? '' : StringC(message));
    setOwn(this, 'name', name === undefined ? 'Error' : StringC(name));
  }
}
define(G, 'DOMException', DOMException);
// Browser builds of packages name the global object \`self\`.
define(G, 'self', G);

class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(input) { return utf8Encode(input === undefined ? '' : input); }
  encodeInto(input, dest) {
    const bytes = utf8Encode(input);
    const room = len(dest);
    let n = bytes.length <= room ? bytes.length : room;
    while (n > 0 && n < bytes.length && (bytes[n] & 0xc0) === 0x80) n--;
    apply(taSet, dest, [new U8(apply(taBuffer, bytes, []), 0, n)]);
    return { read: utf8Decode(new U8(apply(taBuffer, bytes, []), 0, n), false, true).length, written: n };
  }
}
define(G, 'TextEncoder', TextEncoder);

class TextDecoder {
  #fatal; #ignoreBOM;
  constructor(label, options) {
    const l = label === undefined ? 'utf-8' : apply(StringTrim, StringC(label), []).toLowerCase();
    if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') throw new RangeErrorC('The "' + l + '" encoding is not supported in the plugin sandbox (UTF-8 only)');
    this.#fatal = !!(options && options.fatal);
    this.#ignoreBOM = !!(options && options.ignoreBOM);
  }
  get encoding() { return 'utf-8'; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input) { return input === undefined ? '' : utf8Decode(toBytes(input), this.#fatal, this.#ignoreBOM); }
}
define(G, 'TextDecoder', TextDecoder);

define(G, 'btoa', function btoa(data) {
  const s = StringC(data);
  const bytes = new U8(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = apply(charCodeAt, s, [i]);
    if (c > 255) throw new DOMException('Invalid character', 'InvalidCharacterError');
    bytes[i] = c;
  }
  return base64Encode(bytes);
});
define(G, 'atob', function atob(data) {
  const bytes = base64Decode(data);
  if (bytes === null || /[-_]/.test(StringC(data))) throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
  const units = new U16(bytes.length);
  for (let i = 0; i < bytes.length; i++) units[i] = bytes[i];
  return unitsToString(units, bytes.length);
});

// ── structuredClone ─────────────────────────────────────────────────────────
const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
const typedCtors = new MapC();
for (let i = 0; i < TYPED.length; i++) if (typeof G[TYPED[i]] === 'function') apply(MapSet, typedCtors, [ObjectGetPrototypeOf(new G[TYPED[i]](0)), G[TYPED[i]]]);
const ERRORS = { __proto__: null, Error: ErrorC, TypeError: TypeErrorC, RangeError: RangeErrorC, SyntaxError, ReferenceError, EvalError, URIError };
const DateC = Date;
const RegExpC = RegExp;
const DataViewC = DataView;
const abSlice = ABC.prototype.slice;

function cloneValue(v, seen) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
    if (typeof v === 'symbol') throw new DOMException('Symbol() could not be cloned.', 'DataCloneError');
    return v;
  }
  if (typeof v === 'function') throw new DOMException((v.name || 'function') + ' could not be cloned.', 'DataCloneError');
  if (apply(MapHas, seen, [v])) return apply(MapGet, seen, [v]);
  const proto = ObjectGetPrototypeOf(v);
  let out;
  if (isArray(v)) {
    out = [];
    apply(MapSet, seen, [v, out]);
    for (let i = 0; i < v.length; i++) setOwn(out, i, cloneValue(v[i], seen));
    return out;
  }
  if (v instanceof DateC) out = new DateC(+v);
  else if (v instanceof RegExpC) out = new RegExpC(v.source, v.flags);
  else if (v instanceof ABC) out = apply(abSlice, v, [0]);
  else if (apply(MapHas, typedCtors, [proto])) {
    const C = apply(MapGet, typedCtors, [proto]);
    out = new C(cloneValue(v.buffer, seen), v.byteOffset, v.length);
  } else if (v instanceof DataViewC) out = new DataViewC(cloneValue(v.buffer, seen), v.byteOffset, v.byteLength);
  else if (v instanceof MapC) {
    out = new MapC();
    apply(MapSet, seen, [v, out]);
    v.forEach((value, key) => apply(MapSet, out, [cloneValue(key, seen), cloneValue(value, seen)]));
    return out;
  } else if (v instanceof SetC) {
    out = new SetC();
    apply(MapSet, seen, [v, out]);
    v.forEach((value) => out.add(cloneValue(value, seen)));
    return out;
  } else if (v instanceof ErrorC) {
    const C = ERRORS[v.name] || ErrorC;
    out = new C(v.message);
    if (v.stack !== undefined) setOwn(out, 'stack', StringC(v.stack));
  } else if (v instanceof Boolean || v instanceof Number || v instanceof String) out = Object(v.valueOf());
  else {
    out = {};
    apply(MapSet, seen, [v, out]);
    const keys = ObjectKeys(v);
    for (let i = 0; i < keys.length; i++) setOwn(out, keys[i], cloneValue(v[keys[i]], seen));
    return out;
  }
  apply(MapSet, seen, [v, out]);
  return out;
}
define(G, 'structuredClone', function structuredClone(value, options) {
  if (arguments.length === 0) throw new TypeErrorC("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
  return cloneValue(value, new MapC());
});

// ── Event, EventTarget, AbortController, AbortSignal ───────────────────────
class Event {
  #type; #stop = false; #prevented = false;
  constructor(type, init) {
    if (arguments.length === 0) throw new TypeErrorC('The "type" argument must be specified');
    this.#type = StringC(type);
    this.cancelable = !!(init && init.cancelable);
    this.target = null;
    this.currentTarget = null;
    this.timeStamp = DateC.now();
  }
  get type() { return this.#type; }
  get defaultPrevented() { return this.#prevented; }
  preventDefault() { if (this.cancelable) this.#prevented = true; }
  stopPropagation() {}
  stopImmediatePropagation() { this.#stop = true; }
  static stopped(e) { return e.#stop; }
}
const eventStopped = Event.stopped;
delete Event.stopped;
define(G, 'Event', Event);

class EventTarget {
  #listeners = new MapC();
  addEventListener(type, listener, options) {
    if (listener === null || listener === undefined) return;
    const t = StringC(type);
    let list = apply(MapGet, this.#listeners, [t]);
    if (list === undefined) { list = []; apply(MapSet, this.#listeners, [t, list]); }
    for (let i = 0; i < list.length; i++) if (list[i].listener === listener) return;
    const once = typeof options === 'object' && options !== null && !!options.once;
    setOwn(list, list.length, { __proto__: null, listener, once });
    const signal = typeof options === 'object' && options !== null ? options.signal : undefined;
    if (signal && typeof signal.addEventListener === 'function') signal.addEventListener('abort', () => this.removeEventListener(t, listener), { once: true });
  }
  removeEventListener(type, listener) {
    const list = apply(MapGet, this.#listeners, [StringC(type)]);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) if (list[i].listener === listener) { list.splice(i, 1); return; }
  }
  dispatchEvent(event) {
    if (!(event instanceof Event)) throw new TypeErrorC('The "event" argument must be an instance of Event');
    setOwn(event, 'target', this);
    setOwn(event, 'currentTarget', this);
    const handler = this['on' + event.type];
    const list = apply(MapGet, this.#listeners, [event.type]);
    const run = list === undefined ? [] : list.slice();
    if (typeof handler === 'function') run.unshift({ __proto__: null, listener: handler, once: false });
    for (let i = 0; i < run.length; i++) {
      const { listener, once } = run[i];
      if (once) this.removeEventListener(event.type, listener);
      try {
        if (typeof listener === 'function') apply(listener, this, [event]);
        else if (listener && typeof listener.handleEvent === 'function') listener.handleEvent(event);
      } catch (e) {
        uncaught(e);
      }
      if (eventStopped(event)) break;
    }
    return !event.defaultPrevented;
  }
}
define(G, 'EventTarget', EventTarget);

const abortSignals = new WeakSetC();
class AbortSignal extends EventTarget {
  #aborted = false; #reason = undefined;
  constructor(key) {
    super();
    if (key !== abortSignals) throw new TypeErrorC('Illegal constructor');
    this.onabort = null;
  }
  get aborted() { return this.#aborted; }
  get reason() { return this.#reason; }
  throwIfAborted() { if (this.#aborted) throw this.#reason; }
  static abort(reason) { const s = new AbortSignal(abortSignals); fireAbort(s, reason); return s; }
  static timeout(ms) {
    const s = new AbortSignal(abortSignals);
    setTimeout(() => fireAbort(s, new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
    return s;
  }
  static any(signals) {
    const s = new AbortSignal(abortSignals);
    const list = [...signals];
    for (let i = 0; i < list.length; i++) if (list[i].aborted) { fireAbort(s, list[i].reason); return s; }
    for (let i = 0; i < list.length; i++) list[i].addEventListener('abort', () => fireAbort(s, list[i].reason), { once: true });
    return s;
  }
  static fire(s, reason) {
    if (s.#aborted) return;
    s.#aborted = true;
    s.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    s.dispatchEvent(new Event('abort'));
  }
}
const fireAbort = AbortSignal.fire;
delete AbortSignal.fire;
define(G, 'AbortSignal', AbortSignal);

class AbortController {
  #signal = new AbortSignal(abortSignals);
  get signal() { return this.#signal; }
  abort(reason) { fireAbort(this.#signal, reason); }
}
define(G, 'AbortController', AbortController);

// ── process.env ─────────────────────────────────────────────────────────────
// Published plugins read their settings from process.env. A bundled plugin that mentions \`process\` gets
// runtime/isolate/sdk/process.ts (esbuild inject), whose env is this: the service's variables its code names or its
// operator lists (\`service_env\`), credentials never among them, under the operator's own \`env\`
// (runtime/process/plugin-env.ts). No \`process\` global: nothing Node-like is on globalThis.
function setProcess(envJson) {
  let env = {};
  try { env = parse(typeof envJson === 'string' ? envJson : '{}'); } catch { env = {}; }
  define(G, Symbol.for('relaybox.env'), ObjectFreeze(env));
}
`;
