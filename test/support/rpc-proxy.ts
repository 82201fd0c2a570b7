// An honest RPC URL in front of a real node, for the tests that need one between the service and anvil: it forwards
// JSON-RPC as is, or fails the way a provider fails (HTTP 503s and 429s, requests that never answer, connections cut),
// holds the requests of one method on demand, and counts what it did and each JSON-RPC method it saw (batch items one
// by one). The upstream can be swapped (anvil restarted on another port) while the URL the service knows stays the
// same; any path is accepted (a provider's `/v3/<key>`).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { keccak256, type Hex } from 'viem';

export type FaultMode =
  | { kind: 'pass' }
  /** Fails this share of requests, half 503 (overloaded), half 429 with `Retry-After: 1`. */
  | { kind: 'errors'; rate: number }
  /** Every request: 503. */
  | { kind: 'overloaded' }
  /** Every request: 429 with this Retry-After. */
  | { kind: 'limited'; retryAfter: string }
  | { kind: 'hang' }
  | { kind: 'down' }
  /**
   * A provider that swallows broadcasts (issue 40): eth_sendRawTransaction (alone or in a batch) is answered by the
   * proxy itself, with the transaction's hash (`answer: 'hash'`, as an accepting node does) or the "already known"
   * error, and never forwarded; every other call is forwarded as in `pass`.
   */
  | { kind: 'swallow'; answer: 'hash' | 'known' };

export interface FaultCounts {
  /** Every request that reached the proxy, whatever became of it. */
  requests: number;
  forwarded: number;
  errors: number;
  hung: number;
  cut: number;
  /** eth_sendRawTransaction calls answered by the proxy and never forwarded (the `swallow` mode). */
  swallowed: number;
}

export interface RpcProxy {
  readonly url: string;
  mode: FaultMode;
  upstream: string;
  readonly counts: FaultCounts;
  /** JSON-RPC methods asked, by name (clear it to count from now on). */
  readonly asked: Map<string, number>;
  /** How many requests naming `method` were answered by the upstream. */
  answered(method: string): number;
  /** From now on, a request naming `method` waits (not forwarded) until release(). */
  hold(method: string): void;
  /** Requests waiting on hold. */
  held(): number;
  /** Stops holding, and forwards the requests that waited. */
  release(): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The JSON-RPC methods a body names (a batch's items one by one); none when it is not JSON-RPC. */
function methodsOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString()) as { method?: unknown } | Array<{ method?: unknown }>;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((item) => String(item?.method));
  } catch {
    return [];
  }
}

const bump = (map: Map<string, number>, methods: readonly string[]) =>
  methods.forEach((m) => map.set(m, (map.get(m) ?? 0) + 1));

/** What the proxy answers by itself in `mode` (true: answered, nothing to forward). */
function failed(mode: FaultMode, counts: FaultCounts, req: IncomingMessage, res: ServerResponse): boolean {
  switch (mode.kind) {
    case 'down':
      counts.cut++;
      req.socket.destroy();
      return true;
    case 'hang':
      // Never answered: the caller's own timeout ends it (the socket is freed when the proxy closes).
      counts.hung++;
      return true;
    case 'overloaded':
      counts.errors++;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream overloaded');
      return true;
    case 'limited':
      counts.errors++;
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': mode.retryAfter })
        .end('{"error":"rate limited"}');
      return true;
    case 'errors':
      if (Math.random() >= mode.rate) return false;
      // Half overloaded (503), half rate-limited with a Retry-After, as providers answer.
      counts.errors++;
      if (counts.errors % 2 === 0)
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('too many requests');
      else res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream overloaded');
      return true;
    case 'pass':
    case 'swallow':
      return false;
  }
}

type RpcItem = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };

/** The proxy's own answer to a swallowed eth_sendRawTransaction. */
function swallowedAnswer(item: RpcItem, answer: 'hash' | 'known') {
  const raw = Array.isArray(item.params) ? (item.params[0] as Hex) : '0x';
  return answer === 'hash'
    ? { jsonrpc: '2.0', id: item.id, result: keccak256(raw) }
    : { jsonrpc: '2.0', id: item.id, error: { code: -32000, message: 'already known' } };
}

/** The body's items split into those swallowed (answered here) and the rest (a body to forward, or null). */
function splitSwallowed(
  body: Buffer,
  answer: 'hash' | 'known',
): { answers: unknown[]; rest: RpcItem[]; batch: boolean } | null {
  let parsed: RpcItem | RpcItem[];
  try {
    parsed = JSON.parse(body.toString()) as RpcItem | RpcItem[];
  } catch {
    return null;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  if (!items.some((i) => i?.method === 'eth_sendRawTransaction')) return null;
  return {
    answers: items.filter((i) => i.method === 'eth_sendRawTransaction').map((i) => swallowedAnswer(i, answer)),
    rest: items.filter((i) => i.method !== 'eth_sendRawTransaction'),
    batch: Array.isArray(parsed),
  };
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const counts: FaultCounts = { requests: 0, forwarded: 0, errors: 0, hung: 0, cut: 0, swallowed: 0 };
  const asked = new Map<string, number>();
  const answered = new Map<string, number>();
  const waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const proxy = { mode: { kind: 'pass' } as FaultMode, upstream, holding: undefined as string | undefined };

  const forward = async (body: Buffer, methods: string[], res: ServerResponse) => {
    try {
      const answer = await fetch(proxy.upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array(body),
      });
      const text = await answer.text();
      counts.forwarded++;
      bump(answered, methods);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    } catch {
      // The node itself is gone (anvil killed): the caller sees what a dead node gives, a cut connection.
      counts.cut++;
      res.socket?.destroy();
    }
  };

  const server = createServer(async (req, res) => {
    counts.requests++;
    const body = await readBody(req);
    const methods = methodsOf(body);
    bump(asked, methods);
    if (failed(proxy.mode, counts, req, res)) return;
    if (proxy.holding && methods.includes(proxy.holding)) await new Promise<void>((go) => waiting.push(go));
    const mode = proxy.mode;
    const split = mode.kind === 'swallow' ? splitSwallowed(body, mode.answer) : null;
    if (!split) return forward(body, methods, res);
    counts.swallowed += split.answers.length;
    if (!split.batch)
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(split.answers[0]));
    // A batch: the other items forwarded as a batch of their own, the answers put together.
    let others: unknown[] = [];
    if (split.rest.length > 0) {
      const answer = await fetch(proxy.upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(split.rest),
      }).catch(() => null);
      if (!answer) return void res.socket?.destroy();
      counts.forwarded++;
      others = (await answer.json()) as unknown[];
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([...others, ...split.answers]));
  });
  // A URL that is "down" refuses at the first byte: cut every connection the moment it opens.
  server.on('connection', (socket) => {
    if (proxy.mode.kind === 'down') {
      counts.cut++;
      return void socket.destroy();
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get mode() {
      return proxy.mode;
    },
    set mode(m: FaultMode) {
      proxy.mode = m;
      // Going down also ends the connections kept alive from before.
      if (m.kind === 'down') for (const s of sockets) s.destroy();
    },
    get upstream() {
      return proxy.upstream;
    },
    set upstream(u: string) {
      proxy.upstream = u;
    },
    counts,
    asked,
    answered: (method) => answered.get(method) ?? 0,
    hold(method) {
      proxy.holding = method;
    },
    held: () => waiting.length,
    release() {
      proxy.holding = undefined;
      waiting.splice(0).forEach((go) => go());
    },
    close: () =>
      new Promise<void>((done) => {
        proxy.holding = undefined;
        waiting.splice(0).forEach((go) => go());
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}
