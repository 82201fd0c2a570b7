// Simulated Coinbase Developer Platform (CDP) v2 server-account API for tests. It speaks the documented wire protocol
// of POST /v2/evm/accounts/{address}/sign and POST /v2/solana/accounts/{address}/sign/transaction, verifies both
// authentications CDP documents (the bearer JWT signed with the API key secret, EdDSA/Ed25519 or ES256, whose kid and
// sub are the key id, iss "cdp", nbf/exp current, and uris "POST host/path" of this request; the X-Wallet-Auth JWT,
// ES256 with the wallet secret, bound to the same uri and to reqHash, the SHA-256 of the body's sorted JSON) and signs
// with real keys it holds (secp256k1, Ed25519). 401 for a bad API key JWT, 401 for a bad wallet JWT, as CDP answers.
// Faults on demand: hang, throttle (429), reflect (the request repeated as the error message).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import secp256k1 from 'secp256k1';
import { reflection } from './reflect.ts';
import { getAddressDecoder } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';

export interface CdpCredentials {
  apiKeyId: string;
  /** Ed25519: base64 of seed ‖ public key (64 bytes); ES256: a PEM EC private key. */
  apiKeySecret: string;
  /** base64 DER PKCS#8 of a P-256 key, as the CDP portal gives it. */
  walletSecret: string;
}

export interface CdpSim {
  readonly url: string;
  /** Credentials this project accepts (Ed25519 API key). */
  readonly credentials: CdpCredentials;
  /** Another API key of the project, of the ES256 kind. */
  readonly es256Credentials: CdpCredentials;
  addEvmAccount(privateKey?: Uint8Array): string;
  addSolanaAccount(): string;
  readonly stats: { signs: number; refusedJwts: number; refusedWalletJwts: number };
  setFault(fault: 'ok' | 'hang' | 'throttle' | 'reflect'): void;
  close(): Promise<void>;
}

/** A fresh API key (Ed25519 or ES256) and wallet secret, in CDP's formats, with the public halves. */
export function newCdpCredentials(kind: 'ed25519' | 'es256' = 'ed25519'): {
  credentials: CdpCredentials;
  apiPublic: KeyObject;
  walletPublic: KeyObject;
} {
  const wallet = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const walletSecret = wallet.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  const apiKeyId = randomUUID();
  if (kind === 'es256') {
    const api = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return {
      credentials: {
        apiKeyId,
        apiKeySecret: api.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        walletSecret,
      },
      apiPublic: api.publicKey,
      walletPublic: wallet.publicKey,
    };
  }
  const api = generateKeyPairSync('ed25519');
  const seed = api.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = api.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    credentials: { apiKeyId, apiKeySecret: Buffer.concat([seed, pub]).toString('base64'), walletSecret },
    apiPublic: api.publicKey,
    walletPublic: wallet.publicKey,
  };
}

/** The claims of a compact JWT whose signature verifies with `key`, or undefined. */
function verifiedJwt(
  token: string,
  keyFor: (header: Record<string, unknown>) => KeyObject | undefined,
): { header: Record<string, any>; claims: Record<string, any> } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const key = keyFor(header);
    if (!key) return undefined;
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2]!, 'base64url');
    const ok =
      header.alg === 'EdDSA'
        ? verify(null, data, key, signature)
        : header.alg === 'ES256'
          ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
          : false;
    return ok ? { header, claims } : undefined;
  } catch {
    return undefined;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startCdpSim(): Promise<CdpSim> {
  const ed = newCdpCredentials('ed25519');
  const es = newCdpCredentials('es256');
  const apiKeys = new Map([
    [ed.credentials.apiKeyId, { alg: 'EdDSA', key: ed.apiPublic, wallet: ed.walletPublic }],
    [es.credentials.apiKeyId, { alg: 'ES256', key: es.apiPublic, wallet: es.walletPublic }],
  ]);
  const evmAccounts = new Map<string, Uint8Array>();
  const solanaAccounts = new Map<string, KeyObject>();
  const stats = { signs: 0, refusedJwts: 0, refusedWalletJwts: 0 };
  let fault: 'ok' | 'hang' | 'throttle' | 'reflect' = 'ok';
  const hung = new Set<ServerResponse>();
  const now = () => Math.floor(Date.now() / 1000);

  /** Both JWTs checked for this request; an error answer when either fails. */
  function authenticate(req: IncomingMessage, body: string, path: string): [number, unknown] | undefined {
    const uri = `POST ${req.headers.host}${path}`;
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    let project: { wallet: KeyObject } | undefined;
    const api = verifiedJwt(bearer, (h) => {
      const known = apiKeys.get(String(h.kid));
      project = known;
      return known && known.alg === h.alg ? known.key : undefined;
    });
    const c = api?.claims;
    if (
      !api ||
      !project ||
      c!.sub !== api.header.kid ||
      c!.iss !== 'cdp' ||
      !(c!.nbf <= now() + 5) ||
      !(c!.exp > now()) ||
      !c!.uris?.includes(uri)
    ) {
      stats.refusedJwts++;
      return [
        401,
        { errorType: 'unauthorized', errorMessage: 'Invalid or expired API key JWT.', correlationId: randomUUID() },
      ];
    }
    const wallet = verifiedJwt(String(req.headers['x-wallet-auth'] ?? ''), (h) =>
      h.alg === 'ES256' ? project!.wallet : undefined,
    );
    const reqHash = createHash('sha256')
      .update(JSON.stringify(sortKeys(JSON.parse(body))))
      .digest('hex');
    const w = wallet?.claims;
    if (!w || !w.uris?.includes(uri) || w.reqHash !== reqHash || !(Math.abs(now() - Number(w.iat)) < 60)) {
      stats.refusedWalletJwts++;
      return [
        401,
        { errorType: 'unauthorized', errorMessage: 'Wallet authentication error.', correlationId: randomUUID() },
      ];
    }
    return undefined;
  }

  function signEvm(res: ServerResponse, account: string, body: { hash?: unknown }): void {
    const key = evmAccounts.get(account.toLowerCase());
    if (!key) return send(res, 404, { errorType: 'not_found', errorMessage: 'EVM account not found.' });
    const hash = Buffer.from(String(body.hash ?? '').replace(/^0x/, ''), 'hex');
    if (hash.length !== 32)
      return send(res, 400, { errorType: 'invalid_request', errorMessage: 'hash must be 32 bytes.' });
    const { signature, recid } = secp256k1.ecdsaSign(hash, key);
    stats.signs++;
    send(res, 200, { signature: `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}` });
  }

  function signSolana(res: ServerResponse, account: string, body: { transaction?: unknown }): void {
    const key = solanaAccounts.get(account);
    if (!key) return send(res, 404, { errorType: 'not_found', errorMessage: 'Solana account not found.' });
    const wire = Buffer.from(String(body.transaction ?? ''), 'base64');
    const count = wire[0] ?? 0; // fewer than 128 signers: one length byte
    const message = wire.subarray(1 + count * 64);
    const header = (message[0]! & 0x80) !== 0 ? 1 : 0;
    const keys = message.subarray(header + 4, header + 4 + message[header + 3]! * 32);
    const index = Array.from({ length: message[header]! }, (_, i) =>
      getAddressDecoder().decode(keys.subarray(i * 32, i * 32 + 32)),
    ).indexOf(account as never);
    if (count === 0 || index < 0)
      return send(res, 400, {
        errorType: 'invalid_request',
        errorMessage: 'The account is not a signer of the transaction.',
      });
    const signed = Buffer.from(wire);
    sign(null, message, key).copy(signed, 1 + index * 64);
    stats.signs++;
    send(res, 200, { signedTransaction: signed.toString('base64') });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8') || '{}';
    if (fault === 'hang') return void hung.add(res);
    if (fault === 'throttle')
      return send(res, 429, { errorType: 'rate_limit_exceeded', errorMessage: 'Rate limit exceeded.' });
    if (fault === 'reflect')
      return send(res, 401, {
        errorType: 'unauthorized',
        errorMessage: reflection(req, body),
        correlationId: randomUUID(),
      });
    const path = new URL(req.url ?? '/', 'http://cdp').pathname;
    const evm = /^\/platform\/v2\/evm\/accounts\/([^/]+)\/sign$/.exec(path);
    const solana = /^\/platform\/v2\/solana\/accounts\/([^/]+)\/sign\/transaction$/.exec(path);
    if (req.method !== 'POST' || (!evm && !solana))
      return send(res, 404, { errorType: 'not_found', errorMessage: 'Not found.' });
    const refused = authenticate(req, body, path);
    if (refused) return send(res, refused[0], refused[1]);
    if (evm) return signEvm(res, decodeURIComponent(evm[1]!), JSON.parse(body));
    signSolana(res, decodeURIComponent(solana![1]!), JSON.parse(body));
  }

  const server = createServer(
    (req, res) =>
      void handle(req, res).catch(() =>
        send(res, 500, { errorType: 'internal_server_error', errorMessage: 'Internal error.' }),
      ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/platform`,
    credentials: ed.credentials,
    es256Credentials: es.credentials,
    stats,
    addEvmAccount(privateKey = new Uint8Array(randomBytes(32))) {
      const address = privateKeyToAccount(`0x${Buffer.from(privateKey).toString('hex')}`).address;
      evmAccounts.set(address.toLowerCase(), privateKey);
      return address;
    },
    addSolanaAccount() {
      const pair = generateKeyPairSync('ed25519');
      const address = getAddressDecoder().decode(pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
      solanaAccounts.set(address, pair.privateKey);
      return address;
    },
    setFault(next) {
      fault = next;
      if (next !== 'hang') {
        for (const res of hung) res.destroy();
        hung.clear();
      }
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
