// An honest RPC URL in front of anvil for the chaos suite: it forwards JSON-RPC as is, or fails the way a provider
// fails (HTTP 503s and 429s at a rate, requests that never answer, connections cut), and counts what it did. The upstream can
// be swapped (anvil restarted on another port) while the URL the service knows stays the same.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultMode = { kind: 'pass' } | { kind: 'errors'; rate: number } | { kind: 'hang' } | { kind: 'down' };

export interface FaultCounts {
  forwarded: number;
  errors: number;
  hung: number;
  cut: number;
}

export interface FaultProxy {
  readonly url: string;
  mode: FaultMode;
  upstream: string;
  readonly counts: FaultCounts;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const counts: FaultCounts = { forwarded: 0, errors: 0, hung: 0, cut: 0 };
  const sockets = new Set<Socket>();
  const proxy = { mode: { kind: 'pass' } as FaultMode, upstream };

  const forward = async (body: Buffer, res: ServerResponse) => {
    try {
      const answer = await fetch(proxy.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) });
      counts.forwarded++;
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    } catch {
      // The node itself is gone (anvil killed): the caller sees what a dead node gives, a cut connection.
      counts.cut++;
      res.socket?.destroy();
    }
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const mode = proxy.mode;
    if (mode.kind === 'down') {
      counts.cut++;
      return void req.socket.destroy();
    }
    if (mode.kind === 'hang') {
      // Never answered: the caller's own timeout ends it (the socket is freed when the proxy closes).
      counts.hung++;
      return;
    }
    if (mode.kind === 'errors' && Math.random() < mode.rate) {
      // Half overloaded (503), half rate-limited with a Retry-After, as providers answer.
      counts.errors++;
      if (counts.errors % 2 === 0) return void res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('too many requests');
      return void res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream overloaded');
    }
    await forward(body, res);
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
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}
