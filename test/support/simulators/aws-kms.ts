// Simulated AWS KMS for tests: the JSON 1.1 protocol of GetPublicKey and Sign (TrentService), verifies every request's
// SigV4 signature by recomputing it with the secret access key the test gave the client, and signs with keys it holds
// (node:crypto). What is simulated, on purpose: one region, one account, keys made at start, no key policies.
// ECDSA signatures come back DER-encoded with s low or high at random, as KMS does (it does not normalize s).
import {
  createHash,
  createHmac,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { reflection } from './reflect.ts';
import secp256k1 from 'secp256k1';

export type AwsKeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_EDWARDS25519' | 'ECC_NIST_P256';
export type AwsFault = 'throttle' | 'hang';

export interface AwsKmsSim {
  /** http://127.0.0.1:port: what AWS_ENDPOINT_URL_KMS names. */
  readonly url: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Key ids by spec, made at start. */
  readonly keys: Record<AwsKeySpec, string>;
  /** Requests answered, by operation (authenticated or not). */
  readonly calls: Record<string, number>;
  /** Requests refused for their authentication. */
  readonly refused: number;
  /** The next `times` calls of `operation` are throttled (400 ThrottlingException) or never answered. */
  failNext(operation: 'GetPublicKey' | 'Sign', fault: AwsFault, times?: number): void;
  /** Every request answered 400 with the request itself as AWS's message (a provider that reflects what it is sent). */
  reflect(on: boolean): void;
  /** Drops the faults not used up. */
  clearFaults(): void;
  stop(): Promise<void>;
}

interface HeldKey {
  id: string;
  spec: AwsKeySpec;
  spki: Buffer;
  privateKey: KeyObject;
  /** secp256k1 only: the 32-byte scalar libsecp256k1 signs a digest with (node:crypto hashes what it signs). */
  scalar?: Buffer;
}

const SECP256K1_N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

function makeKey(spec: AwsKeySpec): HeldKey {
  const pair =
    spec === 'ECC_NIST_EDWARDS25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: spec === 'ECC_SECG_P256K1' ? 'secp256k1' : 'prime256v1' });
  const held: HeldKey = {
    id: randomUUID(),
    spec,
    spki: pair.publicKey.export({ format: 'der', type: 'spki' }),
    privateKey: pair.privateKey,
  };
  if (spec === 'ECC_SECG_P256K1') held.scalar = Buffer.from(pair.privateKey.export({ format: 'jwk' }).d!, 'base64url');
  return held;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** Why the request's SigV4 authentication fails, or undefined when it holds (AWS's own checks, in its words). */
function sigV4Refusal(
  req: IncomingMessage,
  body: Buffer,
  sim: { region: string; accessKeyId: string; secretAccessKey: string },
): [string, string] | undefined {
  const auth = req.headers.authorization ?? '';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return ['MissingAuthenticationTokenException', 'Missing Authentication Token'];
  const [, keyId, date, region, service, signedHeaders, signature] = m as unknown as string[];
  if (keyId !== sim.accessKeyId)
    return ['UnrecognizedClientException', 'The security token included in the request is invalid.'];
  if (service !== 'kms' || region !== sim.region)
    return ['InvalidSignatureException', `Credential should be scoped to a valid region and to the kms service.`];
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const when = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!amzDate.startsWith(date!) || !Number.isFinite(when))
    return ['IncompleteSignatureException', 'X-Amz-Date is missing or does not match the credential scope.'];
  if (Math.abs(Date.now() - when) > 5 * 60_000) return ['InvalidSignatureException', 'Signature expired.'];
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date'))
    return ['InvalidSignatureException', 'Host and X-Amz-Date must be signed.'];
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const [path, query = ''] = (req.url ?? '/').split('?');
  const canonicalQuery = query.split('&').filter(Boolean).sort().join('&');
  const canonicalRequest = [
    req.method,
    path,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    sha256(body).toString('hex'),
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest).toString('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${sim.secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const expected = hmac(signingKey, stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) {
    return [
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    ];
  }
  return undefined;
}

/** DER of an ECDSA signature over `digest`, s low or high at random (both verify; KMS answers either). */
function ecdsaDer(key: HeldKey, digest: Buffer): Buffer {
  const { signature } = secp256k1.ecdsaSign(digest, key.scalar!, { data: randomBytes(32) });
  if (randomBytes(1)[0]! & 1) {
    const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
    signature.set(Buffer.from((SECP256K1_N - s).toString(16).padStart(64, '0'), 'hex'), 32);
  }
  return Buffer.from(secp256k1.signatureExport(signature));
}

type Answer = [number, Record<string, unknown>];
const fail = (type: string, message: string): Answer => [400, { __type: type, message }];

function findKey(keys: Map<string, HeldKey>, keyId: unknown): HeldKey | undefined {
  const id = String(keyId ?? '').replace(/^arn:aws:kms:[^:]+:\d+:key\//, '');
  return keys.get(id);
}

function operate(
  op: string,
  input: Record<string, any>,
  keys: Map<string, HeldKey>,
  arn: (k: HeldKey) => string,
): Answer {
  const key = findKey(keys, input.KeyId);
  if (!key) return fail('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
  const algorithms =
    key.spec === 'ECC_NIST_EDWARDS25519' ? ['ED25519_SHA_512', 'ED25519_PH_SHA_512'] : ['ECDSA_SHA_256'];
  if (op === 'GetPublicKey') {
    return [
      200,
      {
        KeyId: arn(key),
        PublicKey: key.spki.toString('base64'),
        KeySpec: key.spec,
        CustomerMasterKeySpec: key.spec,
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: algorithms,
      },
    ];
  }
  if (key.spec === 'ECC_NIST_P256')
    return fail('ValidationException', 'signing with an ECC_NIST_P256 key is not simulated');
  const message = Buffer.from(String(input.Message ?? ''), 'base64');
  if (!algorithms.includes(input.SigningAlgorithm))
    return fail('InvalidKeyUsageException', `${input.SigningAlgorithm} is not valid for this key`);
  let signature: Buffer;
  if (input.SigningAlgorithm === 'ED25519_SHA_512') {
    if (input.MessageType !== 'RAW') return fail('ValidationException', 'ED25519_SHA_512 signs RAW messages only');
    signature = sign(null, message, key.privateKey);
  } else if (input.SigningAlgorithm === 'ECDSA_SHA_256') {
    if (input.MessageType === 'DIGEST' && message.length !== 32)
      return fail('ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.');
    signature = ecdsaDer(key, input.MessageType === 'DIGEST' ? message : sha256(message));
  } else return fail('ValidationException', `${input.SigningAlgorithm} is not simulated`);
  return [200, { KeyId: arn(key), Signature: signature.toString('base64'), SigningAlgorithm: input.SigningAlgorithm }];
}

export async function startAwsKmsSim(
  options: { region?: string; accessKeyId?: string; secretAccessKey?: string } = {},
): Promise<AwsKmsSim> {
  const region = options.region ?? 'us-east-1';
  const accessKeyId = options.accessKeyId ?? `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString('base64');
  const held = (['ECC_SECG_P256K1', 'ECC_NIST_EDWARDS25519', 'ECC_NIST_P256'] as const).map(makeKey);
  const keys = new Map(held.map((k) => [k.id, k]));
  const arn = (k: HeldKey) => `arn:aws:kms:${region}:111122223333:key/${k.id}`;
  const calls: Record<string, number> = {};
  const faults: Array<{ operation: string; fault: AwsFault; times: number }> = [];
  let refused = 0;
  let reflecting = false;

  const answer = (res: ServerResponse, [status, body]: Answer) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (reflecting) return answer(res, fail('UnrecognizedClientException', reflection(req, body)));
    const op = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
    calls[op] = (calls[op] ?? 0) + 1;
    if (req.method !== 'POST' || (op !== 'GetPublicKey' && op !== 'Sign'))
      return answer(res, fail('UnknownOperationException', `${op} is not simulated`));
    const refusal = sigV4Refusal(req, body, { region, accessKeyId, secretAccessKey });
    if (refusal) {
      refused++;
      return answer(res, fail(...refusal));
    }
    const fault = faults.find((f) => f.operation === op && f.times > 0);
    if (fault) {
      fault.times--;
      if (fault.fault === 'hang') return; // never answered: the client's deadline must end the call
      return answer(res, fail('ThrottlingException', 'Rate exceeded'));
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(res, fail('SerializationException', 'The request body is not JSON'));
    }
    answer(res, operate(op, input, keys, arn));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    region,
    accessKeyId,
    secretAccessKey,
    keys: Object.fromEntries(held.map((k) => [k.spec, k.id])) as Record<AwsKeySpec, string>,
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
