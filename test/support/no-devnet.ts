// Where the example config's networks point in a test app (its devnet network unless `devnet: true`): a loopback listener
// (one per test process) that is no chain. It answers every JSON-RPC request with a JSON-RPC error naming the missing
// option, so the app's start-up check of the chain id and the relayers' balance checks fail at once (a port nothing
// listens on, or a public URL offline, costs the RPC pool's retry rounds, ~0.5 s per app) and a test that needed a
// chain fails saying why.
import { createServer, type Server } from 'node:http';

const NO_DEVNET_MESSAGE =
  "no chain behind the example config's networks in this test app: pass devnet: true to build() for the devnet's anvil, or give config.networks";

let listening: Promise<string> | undefined;

/** The URL of this process's no-chain listener, started on first use; it never keeps the process alive. */
export function noDevnetUrl(): Promise<string> {
  listening ??= new Promise<string>((resolve, reject) => {
    const server: Server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answer(body)));
      });
    });
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      const address = server.address();
      if (!address || typeof address === 'string')
        return reject(new Error('the no-devnet listener did not bind a TCP port'));
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
  return listening;
}

/** A JSON-RPC error for each request of the body (a batch gets a batch), with the request's id. */
function answer(body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const error = (id: unknown) => ({
    jsonrpc: '2.0',
    id: id ?? null,
    error: { code: -32601, message: NO_DEVNET_MESSAGE },
  });
  const idOf = (r: unknown) => (r !== null && typeof r === 'object' ? (r as { id?: unknown }).id : undefined);
  return Array.isArray(parsed) ? parsed.map((r) => error(idOf(r))) : error(idOf(parsed));
}
