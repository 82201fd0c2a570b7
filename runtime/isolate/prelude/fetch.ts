// Prelude part (INSIDE the isolate): fetch, Headers, Request, Response. A fetch is a request the worker answers
// itself (runtime/worker/egress.ts) under the plugin's egress policy; a refused origin rejects here with a clear error
// (code EGRESS_DENIED). The request body is bounded before it leaves; an AbortSignal cancels the worker's request.

export const FETCH = String.raw`
const URLSearchParamsName = 'URLSearchParams';

function headerName(name) {
  const n = StringC(name);
  if (!/^[!#$%&'*+.^_\x60|~0-9A-Za-z-]+$/.test(n)) throw new TypeErrorC('Invalid header name: "' + n + '"');
  return n.toLowerCase();
}
const headerValue = (v) => apply(StringTrim, StringC(v), []);

class Headers {
  #map = new MapC();
  constructor(init) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) { init.forEach((v, k) => this.append(k, v)); return; }
    if (typeof init !== 'object') throw new TypeErrorC('Headers: init must be an object');
    if (typeof init[Symbol.iterator] === 'function') {
      for (const pair of init) {
        if (pair === null || typeof pair !== 'object' || pair.length !== 2) throw new TypeErrorC('Headers: each header must be a [name, value] pair');
        this.append(pair[0], pair[1]);
      }
      return;
    }
    const keys = ObjectKeys(init);
    for (let i = 0; i < keys.length; i++) this.append(keys[i], init[keys[i]]);
  }
  append(name, value) {
    const k = headerName(name);
    const prev = apply(MapGet, this.#map, [k]);
    apply(MapSet, this.#map, [k, prev === undefined ? headerValue(value) : prev + ', ' + headerValue(value)]);
  }
  set(name, value) { apply(MapSet, this.#map, [headerName(name), headerValue(value)]); }
  get(name) { const v = apply(MapGet, this.#map, [headerName(name)]); return v === undefined ? null : v; }
  has(name) { return apply(MapHas, this.#map, [headerName(name)]); }
  delete(name) { this.#map.delete(headerName(name)); }
  getSetCookie() { const v = this.get('set-cookie'); return v === null ? [] : [v]; }
  forEach(fn, thisArg) { const list = this.#sorted(); for (let i = 0; i < list.length; i++) apply(fn, thisArg, [list[i][1], list[i][0], this]); }
  #sorted() { const list = [...this.#map]; list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); return list; }
  *entries() { yield* this.#sorted(); }
  *keys() { for (const [k] of this.#sorted()) yield k; }
  *values() { for (const [, v] of this.#sorted()) yield v; }
  [Symbol.iterator]() { return this.entries(); }
}
define(G, 'Headers', Headers);

/** A body as bytes plus the content type it implies (string, BufferSource, URLSearchParams, Blob-less). */
function bodyBytes(body) {
  if (body === undefined || body === null) return { bytes: null, type: null };
  if (typeof body === 'string') return { bytes: utf8Encode(body), type: 'text/plain;charset=UTF-8' };
  if (isBufferSource(body)) return { bytes: toBytes(body), type: null };
  if (typeof body === 'object' && body.constructor && body.constructor.name === URLSearchParamsName) return { bytes: utf8Encode(StringC(body)), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (typeof body === 'object' && typeof body.bytesForFetch === 'function') return body.bytesForFetch();
  throw new TypeErrorC('fetch: this body type is not supported in the plugin sandbox (use a string, an ArrayBuffer, a typed array or URLSearchParams)');
}

class Body {
  #bytes; #used = false;
  constructor(bytes) { this.#bytes = bytes; }
  get bodyUsed() { return this.#used; }
  get body() { return null; }
  #take() {
    if (this.#used) return rejected(new TypeErrorC('Body is unusable: Body has already been read'));
    this.#used = true;
    return resolved(this.#bytes === null ? new U8(0) : this.#bytes);
  }
  static peek(b) { return b.#bytes; }
  arrayBuffer() { return this.#take().then((b) => apply(abSlice, apply(taBuffer, b, []), [apply(taOffset, b, []), apply(taOffset, b, []) + len(b)])); }
  bytes() { return this.#take().then((b) => new U8(b)); }
  text() { return this.#take().then((b) => utf8Decode(b, false, false)); }
  json() { return this.text().then((t) => parse(t)); }
  blob() { return rejected(new TypeErrorC('Blob is not available in the plugin sandbox; use arrayBuffer() or text()')); }
  formData() { return rejected(new TypeErrorC('FormData is not available in the plugin sandbox')); }
}
const peekBody = Body.peek;
delete Body.peek;

const wireToken = { __proto__: null };
class Response extends Body {
  #status; #statusText; #headers; #url = ''; #redirected = false; #type = 'default';
  constructor(body, init, wire) {
    const fromWire = wire === wireToken;
    const b = fromWire ? { bytes: body, type: null } : bodyBytes(body);
    super(b.bytes);
    const i = init || {};
    this.#status = i.status === undefined ? 200 : i.status | 0;
    if (!fromWire && (this.#status < 200 || this.#status > 599)) throw new RangeErrorC('init["status"] must be in the range of 200 to 599, inclusive.');
    this.#statusText = i.statusText === undefined ? '' : StringC(i.statusText);
    this.#headers = new Headers(i.headers);
    if (b.type !== null && !this.#headers.has('content-type')) this.#headers.set('content-type', b.type);
    if (fromWire) { this.#url = StringC(i.url); this.#redirected = i.redirected === true; this.#type = i.type || 'basic'; }
  }
  get status() { return this.#status; }
  get statusText() { return this.#statusText; }
  get ok() { return this.#status >= 200 && this.#status <= 299; }
  get headers() { return this.#headers; }
  get url() { return this.#url; }
  get redirected() { return this.#redirected; }
  get type() { return this.#type; }
  clone() {
    if (this.bodyUsed) throw new TypeErrorC('Response.clone: Body has already been consumed.');
    return new Response(peekBody(this), { status: this.#status, statusText: this.#statusText, headers: this.#headers, url: this.#url, redirected: this.#redirected, type: this.#type }, wireToken);
  }
  static json(data, init) {
    const i = init || {};
    const headers = new Headers(i.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(stringify(data), { status: i.status, statusText: i.statusText, headers });
  }
  static error() { return new Response(null, { status: 0, type: 'error' }, wireToken); }
}
define(G, 'Response', Response);

class Request extends Body {
  #url; #method; #headers; #signal;
  constructor(input, init) {
    const i = init || {};
    const from = input instanceof Request ? input : null;
    const b = i.body !== undefined ? bodyBytes(i.body) : { bytes: from ? peekBody(from) : null, type: null };
    super(b.bytes);
    this.#url = from ? from.url : StringC(input && typeof input === 'object' && typeof input.href === 'string' ? input.href : input);
    this.#method = StringC(i.method !== undefined ? i.method : from ? from.method : 'GET').toUpperCase();
    if ((this.#method === 'GET' || this.#method === 'HEAD') && b.bytes !== null) throw new TypeErrorC('Request with GET/HEAD method cannot have body.');
    this.#headers = new Headers(i.headers !== undefined ? i.headers : from ? from.headers : undefined);
    if (b.type !== null && !this.#headers.has('content-type')) this.#headers.set('content-type', b.type);
    this.#signal = i.signal !== undefined && i.signal !== null ? i.signal : from ? from.signal : new AbortController().signal;
  }
  get url() { return this.#url; }
  get method() { return this.#method; }
  get headers() { return this.#headers; }
  get signal() { return this.#signal; }
  get redirect() { return 'follow'; }
  get credentials() { return 'omit'; }
  clone() { return new Request(this); }
}
define(G, 'Request', Request);

function fetch(input, init) {
  let req;
  try { req = new Request(input, init); } catch (e) { return rejected(e); }
  const signal = req.signal;
  if (signal.aborted) return rejected(signal.reason);
  const bytes = peekBody(req);
  if (bytes !== null && len(bytes) > limits.maxFetchRequestBytes) {
    return rejected(apiError('FETCH_BODY_TOO_LARGE', 'fetch: request body exceeds ' + limits.maxFetchRequestBytes + ' bytes', 413, { limit: limits.maxFetchRequestBytes }));
  }
  const box = { __proto__: null, id: 0 };
  const sent = call('fetch', { url: req.url, method: req.method, headers: [...req.headers], body: bytes === null ? null : base64Encode(bytes) }, box);
  return new PromiseC((resolve, reject) => {
    const onAbort = () => {
      if (pending[box.id] === undefined) return;
      delete pending[box.id];
      send('abort', current, box.id, 0, 0, 0);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    apply(PromiseThen, sent, [(v) => {
      signal.removeEventListener('abort', onAbort);
      resolve(new Response(base64Decode(v.body), { status: v.status, statusText: v.statusText, headers: v.headers, url: v.url, redirected: v.redirected }, wireToken));
    }, (e) => { signal.removeEventListener('abort', onAbort); reject(e); }]);
  });
}
define(G, 'fetch', fetch);
`;
