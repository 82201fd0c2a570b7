// Simulated HashiCorp Vault for tests: no Vault server ships in npm or Debian. It speaks the documented HTTP API the
// signers use (AppRole login, KV v2 read, Transit sign, X-Vault-Token, X-Vault-Namespace), verifies authentication (a
// login with a wrong role_id or secret_id is refused with 400 as Vault does; every KV and Transit call needs a token
// this server issued, in the same namespace, else 403 "permission denied") and signs with real keys it holds
// (Ed25519, or ECDSA P-256 to stand for a key of the wrong type). Faults on demand: hang (no answer), throttle (429).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { reflection } from './reflect.ts';

export interface VaultSim {
  readonly url: string;
  /** AppRole credentials this Vault accepts. */
  readonly roleId: string;
  readonly secretId: string;
  /** Writes a KV v2 secret (`data` is what `data.data` answers). */
  putKv(mount: string, name: string, data: Record<string, unknown>): void;
  /** A Transit key; answers its public key in base64 (as `vault read transit/keys/<name>` shows it). */
  addTransitKey(mount: string, name: string, type?: 'ed25519' | 'ecdsa-p256'): string;
  /** Logins accepted, and calls refused for want of a valid token, so far. */
  readonly stats: { logins: number; refusedLogins: number; refusedTokens: number; signs: number };
  /** Forgets every token issued (a revocation): the next call with one is refused with 403. */
  revokeTokens(): void;
  /** 'hang': requests get no answer; 'throttle': 429; 'ok' answers again. */
  setFault(fault: 'ok' | 'hang' | 'throttle' | 'reflect'): void;
  close(): Promise<void>;
}

interface Options {
  /** Vault Enterprise namespace the role lives in: requests must carry it in X-Vault-Namespace. */
  namespace?: string;
  /** Seconds a token lasts (auth.lease_duration). */
  tokenTtlSeconds?: number;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startVaultSim(options: Options = {}): Promise<VaultSim> {
  const roleId = randomBytes(8).toString('hex');
  const secretId = randomBytes(16).toString('hex');
  const tokens = new Map<string, { namespace: string; until: number }>();
  const kv = new Map<string, Record<string, unknown>>();
  const transit = new Map<string, { key: KeyObject; type: string }>();
  const stats = { logins: 0, refusedLogins: 0, refusedTokens: 0, signs: 0 };
  let fault: 'ok' | 'hang' | 'throttle' | 'reflect' = 'ok';
  const hung = new Set<ServerResponse>();
  const namespaceOf = (req: IncomingMessage) => String(req.headers['x-vault-namespace'] ?? '');

  function login(req: IncomingMessage, res: ServerResponse, body: string): void {
    let creds: { role_id?: unknown; secret_id?: unknown } = {};
    try {
      creds = JSON.parse(body);
    } catch {
      return send(res, 400, { errors: ['failed to parse JSON input'] });
    }
    if (namespaceOf(req) !== (options.namespace ?? '') || creds.role_id !== roleId || creds.secret_id !== secretId) {
      stats.refusedLogins++;
      return send(res, 400, { errors: ['invalid role or secret ID'] });
    }
    stats.logins++;
    const token = `hvs.${randomBytes(18).toString('base64url')}`;
    const ttl = options.tokenTtlSeconds ?? 2764800;
    tokens.set(token, { namespace: namespaceOf(req), until: Date.now() + ttl * 1000 });
    send(res, 200, {
      auth: {
        client_token: token,
        accessor: randomBytes(8).toString('hex'),
        policies: ['default', 'signer'],
        lease_duration: ttl,
        renewable: true,
      },
    });
  }

  /** The documented 403 for a missing, unknown, expired or other-namespace token. */
  function authorized(req: IncomingMessage, res: ServerResponse): boolean {
    const held = tokens.get(String(req.headers['x-vault-token'] ?? ''));
    if (held && held.until > Date.now() && held.namespace === namespaceOf(req)) return true;
    stats.refusedTokens++;
    send(res, 403, { errors: ['permission denied'] });
    return false;
  }

  function transitSign(res: ServerResponse, keyPath: string, body: string): void {
    const held = transit.get(keyPath);
    if (!held) return send(res, 400, { errors: [`encryption key not found`] });
    let input: unknown;
    try {
      input = JSON.parse(body).input;
    } catch {
      return send(res, 400, { errors: ['failed to parse JSON input'] });
    }
    if (typeof input !== 'string') return send(res, 400, { errors: ['missing input to process'] });
    const message = Buffer.from(input, 'base64');
    const signature = held.type === 'ed25519' ? sign(null, message, held.key) : sign('sha256', message, held.key);
    stats.signs++;
    send(res, 200, { data: { signature: `vault:v1:${signature.toString('base64')}`, key_version: 1 } });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (fault === 'hang') return void hung.add(res);
    if (fault === 'throttle') return send(res, 429, { errors: ['request path "…": rate limit quota exceeded'] });
    // Vault's error shape, the request itself as its message: a login answers 400, any other call 403.
    if (fault === 'reflect')
      return send(res, req.url === '/v1/auth/approle/login' ? 400 : 403, { errors: [reflection(req, body)] });
    const url = new URL(req.url ?? '/', 'http://vault');
    if (req.method === 'POST' && url.pathname === '/v1/auth/approle/login') return login(req, res, body);
    if (!authorized(req, res)) return;
    const kvRead = /^\/v1\/(.+)\/data\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && kvRead) {
      const data = kv.get(`${kvRead[1]}\0${kvRead[2]}`);
      return data
        ? send(res, 200, { data: { data, metadata: { version: 1, deletion_time: '', destroyed: false } } })
        : send(res, 404, { errors: [] });
    }
    const sign = /^\/v1\/(.+)\/sign\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && sign) return transitSign(res, `${sign[1]}\0${sign[2]}`, body);
    send(res, 404, { errors: ['no handler for route'] });
  }

  const server = createServer(
    (req, res) => void handle(req, res).catch(() => send(res, 500, { errors: ['internal error'] })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    roleId,
    secretId,
    stats,
    putKv: (mount, name, data) => void kv.set(`${mount}\0${name}`, data),
    addTransitKey(mount, name, type = 'ed25519') {
      const pair =
        type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      transit.set(`${mount}\0${name}`, { key: pair.privateKey, type });
      const spki = pair.publicKey.export({ format: 'der', type: 'spki' });
      return (type === 'ed25519' ? spki.subarray(spki.length - 32) : spki).toString('base64');
    },
    revokeTokens: () => tokens.clear(),
    setFault(next) {
      fault = next;
      if (next !== 'hang') for (const res of hung) res.destroy();
      if (next !== 'hang') hung.clear();
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
