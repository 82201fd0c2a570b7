// Simulated Turnkey API for tests: no Turnkey server ships in npm or Debian. It speaks the documented wire protocol of
// POST /public/v1/submit/sign_raw_payload (ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2), verifies the request's authentication
// (the X-Stamp header: base64url JSON {publicKey, scheme, signature}, the signature an ECDSA P-256 / SHA-256 DER one
// over the exact request body, checked against an API public key this organization registered; the organization and
// the key asked for must be that API key's) and signs with real keys it holds (secp256k1 for EVM, Ed25519).
// Faults on demand: hang, throttle (429), reflect (the request repeated as the error message), pending activities (a policy awaiting approval), high-s signatures.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createECDH,
  createPublicKey,
  ECDH,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { AddressInfo } from 'node:net';
import secp256k1 from 'secp256k1';
import { reflection } from './reflect.ts';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface TurnkeyApiKey {
  /** Compressed P-256 public key, hex (as Turnkey shows an API key). */
  apiPublicKey: string;
  /** The P-256 private scalar, hex (as Turnkey's CLI writes it). */
  apiPrivateKey: string;
}

export interface TurnkeySim {
  readonly url: string;
  readonly organizationId: string;
  /** An API key registered for the organization. */
  readonly apiKey: TurnkeyApiKey;
  /** A key in the organization: `secp256k1` gives its uncompressed public key hex, `ed25519` its 32 bytes hex. */
  addPrivateKey(curve: 'secp256k1' | 'ed25519', privateKey?: Uint8Array): { privateKeyId: string; publicKey: string };
  readonly stats: { signs: number; refusedStamps: number };
  setFault(fault: 'ok' | 'hang' | 'throttle' | 'pending' | 'high-s' | 'reflect'): void;
  close(): Promise<void>;
}

/** A fresh P-256 API key pair in Turnkey's spelling. */
export function newTurnkeyApiKey(): TurnkeyApiKey {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    apiPublicKey: ecdh.getPublicKey('hex', 'compressed'),
    apiPrivateKey: ecdh.getPrivateKey('hex').padStart(64, '0'),
  };
}

/** The P-256 public key of a compressed point in hex (Turnkey's spelling of an API key). */
function p256Key(compressedHex: string): KeyObject {
  const uncompressed = ECDH.convertKey(compressedHex, 'prime256v1', 'hex', undefined, 'uncompressed') as Buffer;
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: uncompressed.subarray(1, 33).toString('base64url'),
      y: uncompressed.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Turnkey answers errors as gRPC-style JSON: { code, message, details }. */
function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startTurnkeySim(): Promise<TurnkeySim> {
  const organizationId = randomUUID();
  const apiKey = newTurnkeyApiKey();
  const apiKeys = new Map([[apiKey.apiPublicKey, p256Key(apiKey.apiPublicKey)]]);
  const keys = new Map<string, { curve: 'secp256k1'; secret: Uint8Array } | { curve: 'ed25519'; key: KeyObject }>();
  const stats = { signs: 0, refusedStamps: 0 };
  let fault: 'ok' | 'hang' | 'throttle' | 'pending' | 'high-s' | 'reflect' = 'ok';
  const hung = new Set<ServerResponse>();

  /** The API public key whose signature over `body` the stamp carries, or undefined. */
  function stampKey(req: IncomingMessage, body: string): string | undefined {
    try {
      const stamp = JSON.parse(Buffer.from(String(req.headers['x-stamp'] ?? ''), 'base64url').toString('utf8'));
      const key = apiKeys.get(stamp.publicKey);
      if (!key || stamp.scheme !== 'SIGNATURE_SCHEME_TK_API_P256') return undefined;
      return verify('sha256', Buffer.from(body), { key, dsaEncoding: 'der' }, Buffer.from(stamp.signature, 'hex'))
        ? stamp.publicKey
        : undefined;
    } catch {
      return undefined;
    }
  }

  function signWith(
    held: NonNullable<ReturnType<typeof keys.get>>,
    payload: Buffer,
    hashFunction: string,
  ): { r: string; s: string; v: string } | string {
    if (held.curve === 'ed25519') {
      if (hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE') return 'ed25519 keys sign with HASH_FUNCTION_NOT_APPLICABLE';
      const sig = sign(null, payload, held.key);
      return { r: sig.subarray(0, 32).toString('hex'), s: sig.subarray(32).toString('hex'), v: '00' };
    }
    if (hashFunction !== 'HASH_FUNCTION_NO_OP' || payload.length !== 32)
      return 'this simulator signs 32-byte digests with HASH_FUNCTION_NO_OP for secp256k1 keys';
    const { signature, recid } = secp256k1.ecdsaSign(payload, held.secret);
    let s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
    // Turnkey does not promise low s: this fault answers the other valid s (and the other recovery id).
    if (fault === 'high-s') s = SECP256K1_N - s;
    return {
      r: Buffer.from(signature.subarray(0, 32)).toString('hex'),
      s: s.toString(16).padStart(64, '0'),
      v: `0${fault === 'high-s' ? 1 - recid : recid}`,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (fault === 'hang') return void hung.add(res);
    if (fault === 'throttle') return send(res, 429, { code: 8, message: 'rate limit exceeded', details: [] });
    if (fault === 'reflect') return send(res, 400, { code: 3, message: reflection(req, body), details: [] });
    if (req.method !== 'POST' || req.url !== '/public/v1/submit/sign_raw_payload')
      return send(res, 404, { code: 5, message: 'Not Found', details: [] });
    if (!stampKey(req, body)) {
      stats.refusedStamps++;
      return send(res, 401, {
        code: 16,
        message: 'could not verify request stamp: invalid signature or unknown API key',
        details: [],
      });
    }
    const request = JSON.parse(body);
    if (request.type !== 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2')
      return send(res, 400, { code: 3, message: `unsupported activity type ${request.type}`, details: [] });
    if (request.organizationId !== organizationId)
      return send(res, 403, { code: 7, message: 'the API key does not belong to this organization', details: [] });
    const held = keys.get(request.parameters?.signWith);
    if (!held)
      return send(res, 404, {
        code: 5,
        message: `private key not found: ${request.parameters?.signWith}`,
        details: [],
      });
    const signed = signWith(held, Buffer.from(request.parameters.payload, 'hex'), request.parameters.hashFunction);
    if (typeof signed === 'string') return send(res, 400, { code: 3, message: signed, details: [] });
    stats.signs++;
    const status = fault === 'pending' ? 'ACTIVITY_STATUS_CONSENSUS_NEEDED' : 'ACTIVITY_STATUS_COMPLETED';
    send(res, 200, {
      activity: {
        id: randomUUID(),
        organizationId,
        status,
        type: request.type,
        intent: { signRawPayloadIntentV2: request.parameters },
        result: status === 'ACTIVITY_STATUS_COMPLETED' ? { signRawPayloadResult: signed } : {},
        votes: [],
        fingerprint: randomBytes(16).toString('hex'),
        canApprove: false,
        canReject: false,
        createdAt: { seconds: String(Math.floor(Date.now() / 1000)), nanos: '0' },
        updatedAt: { seconds: String(Math.floor(Date.now() / 1000)), nanos: '0' },
      },
    });
  }

  const server = createServer(
    (req, res) =>
      void handle(req, res).catch(() => send(res, 500, { code: 13, message: 'internal error', details: [] })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    organizationId,
    apiKey,
    stats,
    addPrivateKey(curve, privateKey) {
      const privateKeyId = randomUUID();
      if (curve === 'secp256k1') {
        const secret = privateKey ?? new Uint8Array(randomBytes(32));
        keys.set(privateKeyId, { curve, secret });
        return { privateKeyId, publicKey: Buffer.from(secp256k1.publicKeyCreate(secret, false)).toString('hex') };
      }
      const pair = generateKeyPairSync('ed25519');
      keys.set(privateKeyId, { curve, key: pair.privateKey });
      const spki = pair.publicKey.export({ format: 'der', type: 'spki' });
      return { privateKeyId, publicKey: spki.subarray(spki.length - 32).toString('hex') };
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
