// Simulated Google Cloud KMS for tests: the REST API v1 (cryptoKeyVersions publicKey and asymmetricSign, Google's error
// JSON), verifies every request's service-account credential, and signs with keys it holds (node:crypto).
// Authentication: Google's client library for Node authenticates a service account with a self-signed JWT (Google's
// documented "service account authorization without OAuth": RS256, signed by the account's private key, `kid` its
// private_key_id, iss = sub = client_email, a cloudkms/cloud-platform `scope`, at most one hour) sent as the bearer
// token; it never calls a token endpoint. The simulator verifies that JWT with the account's public key, as Google
// does with the keys it publishes for the account. An account may use the keys of its own project only (IAM,
// simplified). Simulated on purpose: keys made at start, one version each, no CRC32C fields.
import { createHash, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { reflection } from './reflect.ts';
import secp256k1 from 'secp256k1';

export type GoogleAlgorithm = 'EC_SIGN_SECP256K1_SHA256' | 'EC_SIGN_ED25519' | 'EC_SIGN_P256_SHA256';
export type GoogleFault = 'throttle' | 'hang';

/** The service-account JSON Google issues (the fields the reference's config has). */
export interface ServiceAccount {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export interface GoogleKmsSim {
  /** http://127.0.0.1:port: what GOOGLE_CLOUD_KMS_ENDPOINT names. */
  readonly url: string;
  readonly project: string;
  readonly location: string;
  readonly keyRing: string;
  /** The account allowed to sign; its private key signs the JWTs the simulator checks. */
  readonly serviceAccount: ServiceAccount;
  /** A second account, known to the simulator, of another project: authenticated, not allowed. */
  readonly otherProjectAccount: ServiceAccount;
  /** Key ids (cryptoKeys, version 1) by algorithm. */
  readonly keys: Record<GoogleAlgorithm, string>;
  /** Their public keys (PEM), as getPublicKey answers them. */
  readonly publicKeys: Record<GoogleAlgorithm, string>;
  readonly calls: Record<string, number>;
  readonly refused: number;
  failNext(operation: 'publicKey' | 'asymmetricSign', fault: GoogleFault, times?: number): void;
  /** Every request answered 400 with the request itself as Google's message (a provider that reflects what it is sent). */
  reflect(on: boolean): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

const SECP256K1_N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
const KMS_SCOPES = ['https://www.googleapis.com/auth/cloudkms', 'https://www.googleapis.com/auth/cloud-platform'];

interface HeldKey {
  algorithm: GoogleAlgorithm;
  privateKey: KeyObject;
  pem: string;
  scalar?: Buffer;
}

function makeKey(algorithm: GoogleAlgorithm): HeldKey {
  const pair =
    algorithm === 'EC_SIGN_ED25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', {
          namedCurve: algorithm === 'EC_SIGN_SECP256K1_SHA256' ? 'secp256k1' : 'prime256v1',
        });
  const held: HeldKey = {
    algorithm,
    privateKey: pair.privateKey,
    pem: pair.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
  if (algorithm === 'EC_SIGN_SECP256K1_SHA256')
    held.scalar = Buffer.from(pair.privateKey.export({ format: 'jwk' }).d!, 'base64url');
  return held;
}

function makeAccount(project: string, name: string): { account: ServiceAccount; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account: ServiceAccount = {
    type: 'service_account',
    project_id: project,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    client_email: `${name}@${project}.iam.gserviceaccount.com`,
    client_id: String(BigInt(`0x${randomBytes(8).toString('hex')}`)),
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return { account, publicKey };
}

type Answer = [number, Record<string, unknown>];
const STATUS: Record<string, number> = {
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
};
const fail = (status: string, message: string): Answer => [
  STATUS[status]!,
  { error: { code: STATUS[status], message, status } },
];

interface KnownAccount {
  account: ServiceAccount;
  publicKey: KeyObject;
}

/** The account whose valid self-signed JWT the request bears, or why there is none (Google's words). */
function authenticate(req: IncomingMessage, accounts: KnownAccount[]): KnownAccount | Answer {
  const unauthenticated = fail(
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );
  const m = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(req.headers.authorization ?? '');
  if (!m) return unauthenticated;
  let header: { alg?: string; kid?: string };
  let claims: { iss?: string; sub?: string; scope?: string; aud?: string; iat?: number; exp?: number };
  try {
    header = JSON.parse(Buffer.from(m[1]!, 'base64url').toString());
    claims = JSON.parse(Buffer.from(m[2]!, 'base64url').toString());
  } catch {
    return unauthenticated;
  }
  const known = accounts.find((a) => a.account.client_email === claims.iss && a.account.private_key_id === header.kid);
  if (!known || header.alg !== 'RS256' || claims.sub !== claims.iss) return unauthenticated;
  if (!verify('RSA-SHA256', Buffer.from(`${m[1]}.${m[2]}`), known.publicKey, Buffer.from(m[3]!, 'base64url')))
    return unauthenticated;
  const now = Date.now() / 1000;
  if (
    typeof claims.iat !== 'number' ||
    typeof claims.exp !== 'number' ||
    claims.iat > now + 300 ||
    claims.exp < now ||
    claims.exp - claims.iat > 3600
  )
    return unauthenticated;
  const scopes = (claims.scope ?? '').split(' ');
  if (!scopes.some((s) => KMS_SCOPES.includes(s)) && claims.aud !== 'https://cloudkms.googleapis.com/')
    return unauthenticated;
  return known;
}

function ecdsaDer(key: HeldKey, digest: Buffer): Buffer {
  const { signature } = secp256k1.ecdsaSign(digest, key.scalar!, { data: randomBytes(32) });
  if (randomBytes(1)[0]! & 1) {
    const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
    signature.set(Buffer.from((SECP256K1_N - s).toString(16).padStart(64, '0'), 'hex'), 32);
  }
  return Buffer.from(secp256k1.signatureExport(signature));
}

function asymmetricSign(name: string, key: HeldKey, body: { digest?: { sha256?: string }; data?: string }): Answer {
  if (key.algorithm === 'EC_SIGN_ED25519') {
    if (body.data === undefined) return fail('INVALID_ARGUMENT', 'EC_SIGN_ED25519 keys sign data, not a digest');
    return [
      200,
      {
        signature: sign(null, Buffer.from(body.data, 'base64'), key.privateKey).toString('base64'),
        name,
        protectionLevel: 'HSM',
      },
    ];
  }
  if (key.algorithm !== 'EC_SIGN_SECP256K1_SHA256')
    return fail('INVALID_ARGUMENT', `signing with ${key.algorithm} is not simulated`);
  const digest =
    body.digest?.sha256 !== undefined
      ? Buffer.from(body.digest.sha256, 'base64')
      : body.data !== undefined
        ? createHash('sha256').update(Buffer.from(body.data, 'base64')).digest()
        : undefined;
  if (digest?.length !== 32) return fail('INVALID_ARGUMENT', 'The request must hold a 32-byte digest.sha256 or data');
  return [200, { signature: ecdsaDer(key, digest).toString('base64'), name, protectionLevel: 'HSM' }];
}

export interface GoogleKmsSimOptions {
  project?: string;
  location?: string;
  keyRing?: string;
  /** cryptoKey ids by algorithm (an example config's names). */
  keyIds?: Partial<Record<GoogleAlgorithm, string>>;
}

export async function startGoogleKmsSim(options: GoogleKmsSimOptions = {}): Promise<GoogleKmsSim> {
  const project = options.project ?? 'relaybox-test';
  const location = options.location ?? 'global';
  const keyRing = options.keyRing ?? 'relayer';
  const mine = makeAccount(project, 'relayer');
  const other = makeAccount('another-project', 'outsider');
  const accounts = [mine, other];
  const algorithms = ['EC_SIGN_SECP256K1_SHA256', 'EC_SIGN_ED25519', 'EC_SIGN_P256_SHA256'] as const;
  const keyIds = {
    EC_SIGN_SECP256K1_SHA256: 'evm-key',
    EC_SIGN_ED25519: 'ed25519-key',
    EC_SIGN_P256_SHA256: 'p256-key',
    ...options.keyIds,
  };
  const keys = new Map(
    algorithms.map((a) => [
      `projects/${project}/locations/${location}/keyRings/${keyRing}/cryptoKeys/${keyIds[a]}/cryptoKeyVersions/1`,
      makeKey(a),
    ]),
  );
  const calls: Record<string, number> = {};
  const faults: Array<{ operation: string; fault: GoogleFault; times: number }> = [];
  let refused = 0;
  let reflecting = false;

  const answer = (res: ServerResponse, [status, body]: Answer) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, body: string): Answer | undefined => {
    if (reflecting) return fail('INVALID_ARGUMENT', reflection(req, body));
    const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
    const m =
      /^\/v1\/(projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+\/cryptoKeyVersions\/[^/:]+)(\/publicKey|:asymmetricSign)$/.exec(
        path,
      );
    if (!m) return fail('NOT_FOUND', `${req.method} ${path} is not simulated`);
    const operation = m[2] === '/publicKey' ? 'publicKey' : 'asymmetricSign';
    calls[operation] = (calls[operation] ?? 0) + 1;
    const who = authenticate(req, accounts);
    if (Array.isArray(who)) {
      refused++;
      return who;
    }
    const name = m[1]!;
    if (!name.startsWith(`projects/${who.account.project_id}/`))
      return fail(
        'PERMISSION_DENIED',
        `Permission 'cloudkms.cryptoKeyVersions.useToSign' denied on resource '${name}' (or it may not exist).`,
      );
    const fault = faults.find((f) => f.operation === operation && f.times > 0);
    if (fault) {
      fault.times--;
      if (fault.fault === 'hang') return undefined;
      return fail(
        'RESOURCE_EXHAUSTED',
        "Quota exceeded for quota metric 'Cryptographic requests' of service 'cloudkms.googleapis.com'.",
      );
    }
    const key = keys.get(name);
    if (!key) return fail('NOT_FOUND', `CryptoKeyVersion ${name} not found.`);
    if (operation === 'publicKey')
      return [200, { pem: key.pem, algorithm: key.algorithm, name, protectionLevel: 'HSM' }];
    try {
      return asymmetricSign(name, key, JSON.parse(body));
    } catch {
      return fail('INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
  };

  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const result = handle(req, body);
    if (result) answer(res, result); // undefined: a fault that never answers
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    project,
    location,
    keyRing,
    serviceAccount: mine.account,
    otherProjectAccount: other.account,
    keys: keyIds,
    publicKeys: Object.fromEntries([...keys.values()].map((k) => [k.algorithm, k.pem])) as Record<
      GoogleAlgorithm,
      string
    >,
    calls,
    get refused() {
      return refused;
    },
    failNext(operation, fault, times = 1) {
      faults.push({ operation, fault, times });
    },
    reflect(on) {
      reflecting = on;
    },
    clearFaults() {
      faults.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
