// Simulated Azure Key Vault and Microsoft Entra authority for tests, served over HTTPS (the Azure clients refuse a
// bearer token over http) with a self-signed certificate made at start, trusted the way an operator trusts a private
// CA: NODE_EXTRA_CA_CERTS for a child process, or the test process's default CAs (`trust()`).
// What it speaks, as documented: the authority's OpenID configuration and the OAuth2 client-credentials grant (client
// id + secret, or a federated assertion for workload identity) → an access token for https://vault.azure.net; App
// Service's managed identity endpoint (GET /msi/token, api-version 2019-08-01, the X-IDENTITY-HEADER secret, the
// system-assigned identity or a user-assigned one by client_id: what IDENTITY_ENDPOINT names there); Key Vault
// REST (GET /keys/{name}[/{version}] → a JWK, POST /keys/{name}/{version}/sign with {alg: ES256K, value}) answering a
// request without a valid bearer token with 401 and the Bearer challenge, and signing with secp256k1 keys it holds.
// What is simulated, on purpose: one tenant, one application, one vault, keys made at start, no access policies.
// Signatures come back raw r ‖ s (64 bytes) with s low or high at random, as Key Vault does not normalize s.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import secp256k1 from 'secp256k1';
import { reflection } from './reflect.ts';

export type AzureFault = 'throttle' | 'hang';
const RESOURCE = 'https://vault.azure.net';
const SECP256K1_N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');

export interface AzureKeyVaultSim {
  /** https://127.0.0.1:port: what vault_url names, and AZURE_AUTHORITY_HOST. */
  readonly url: string;
  /** The PEM file of the server's self-signed certificate: NODE_EXTRA_CA_CERTS of a child process. */
  readonly caFile: string;
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A file holding the federated token the authority accepts for workload identity (AZURE_FEDERATED_TOKEN_FILE). */
  readonly federatedTokenFile: string;
  /** The managed identity endpoint (IDENTITY_ENDPOINT) and the secret it requires (IDENTITY_HEADER). */
  readonly identityEndpoint: string;
  readonly identityHeader: string;
  /** The client id of the user-assigned managed identity it knows (besides the system-assigned one). */
  readonly managedClientId: string;
  /** Key names: a secp256k1 key (P-256K) and a P-256 key. */
  readonly keys: { secp256k1: string; p256: string };
  /** Requests refused for their authentication, at the authority or at the vault. */
  readonly refused: number;
  /** Requests answered, by kind: token, managedIdentity, getKey, sign, openid. */
  readonly calls: Record<string, number>;
  /** The next `times` calls of `operation` are throttled (429) or never answered. */
  failNext(operation: 'getKey' | 'sign', fault: AzureFault, times?: number): void;
  /** The authority's token endpoint and the vault answer with the request itself as their message (a provider that reflects what it is sent). */
  reflect(on: boolean): void;
  clearFaults(): void;
  /** Makes this (test) process trust the simulator's certificate, as NODE_EXTRA_CA_CERTS does for a child. */
  trust(): void;
  stop(): Promise<void>;
}

interface HeldKey {
  name: string;
  version: string;
  crv: 'P-256K' | 'P-256';
  x: string;
  y: string;
  scalar: Buffer;
}

function makeKey(name: string, crv: HeldKey['crv']): HeldKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: crv === 'P-256K' ? 'secp256k1' : 'prime256v1' });
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    name,
    version: randomBytes(16).toString('hex'),
    crv,
    x: jwk.x!,
    y: jwk.y!,
    scalar: Buffer.from(jwk.d!, 'base64url'),
  };
}

/** A self-signed certificate for 127.0.0.1 (openssl), its own CA. */
function makeCertificate(dir: string): ServerOptions & { caFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=azure-keyvault-simulator',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(caFile), caFile };
}

/** r ‖ s over `digest`, s low or high at random (both verify). */
function rawSignature(key: HeldKey, digest: Buffer): Buffer {
  const { signature } = secp256k1.ecdsaSign(digest, key.scalar, { data: randomBytes(32) });
  if (randomBytes(1)[0]! & 1) {
    const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
    signature.set(Buffer.from((SECP256K1_N - s).toString(16).padStart(64, '0'), 'hex'), 32);
  }
  return Buffer.from(signature);
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};
/** Entra's error shape (AADSTS codes), as MSAL reads it. */
const aadError = (res: ServerResponse, status: number, error: string, description: string) =>
  send(res, status, {
    error,
    error_description: `${description}\r\nTrace ID: ${randomUUID()}\r\nCorrelation ID: ${randomUUID()}\r\nTimestamp: ${new Date().toISOString()}`,
    error_codes: [Number(/AADSTS(\d+)/.exec(description)?.[1] ?? 0)],
  });

interface State {
  url: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  federatedToken: string;
  identityHeader: string;
  managedClientId: string;
  keys: Map<string, HeldKey>;
  tokens: Map<string, number>;
  calls: Record<string, number>;
  faults: Array<{ operation: string; fault: AzureFault; times: number }>;
  refused: number;
  reflecting: boolean;
}

function openidConfiguration(state: State, res: ServerResponse, tenant: string) {
  if (tenant !== state.tenantId)
    return aadError(res, 400, 'invalid_tenant', `AADSTS90002: Tenant '${tenant}' not found.`);
  const base = `${state.url}/${tenant}`;
  send(res, 200, {
    issuer: `${base}/v2.0`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    token_endpoint: `${base}/oauth2/v2.0/token`,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    jwks_uri: `${base}/discovery/v2.0/keys`,
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
  });
}

/** The client-credentials grant: the secret, or the federated assertion, checked; the scope must be Key Vault's. */
function issueToken(state: State, res: ServerResponse, tenant: string, form: URLSearchParams) {
  if (tenant !== state.tenantId)
    return aadError(res, 400, 'invalid_tenant', `AADSTS90002: Tenant '${tenant}' not found.`);
  if (form.get('grant_type') !== 'client_credentials')
    return aadError(res, 400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
  const clientId = form.get('client_id') ?? '';
  if (!same(clientId, state.clientId)) {
    state.refused++;
    return aadError(
      res,
      400,
      'unauthorized_client',
      `AADSTS700016: Application with identifier '${clientId.slice(0, 64)}' was not found in the directory.`,
    );
  }
  const secret = form.get('client_secret');
  const assertion = form.get('client_assertion');
  const ok =
    secret !== null
      ? same(secret, state.clientSecret)
      : assertion !== null &&
        form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
        same(assertion, state.federatedToken);
  if (!ok) {
    state.refused++;
    return secret !== null
      ? aadError(
          res,
          401,
          'invalid_client',
          `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${state.clientId}'.`,
        )
      : aadError(
          res,
          400,
          'invalid_client',
          'AADSTS700211: No matching federated identity record found for presented assertion.',
        );
  }
  const scopes = (form.get('scope') ?? '').split(' ');
  if (!scopes.includes(`${RESOURCE}/.default`))
    return aadError(
      res,
      400,
      'invalid_scope',
      `AADSTS70011: The provided value for the input parameter 'scope' is not valid.`,
    );
  const token = randomBytes(32).toString('base64url');
  state.tokens.set(token, Date.now() + 3_600_000);
  send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
}

/** App Service's managed identity endpoint: the header secret checked, then a token for the resource asked. */
function managedIdentityToken(state: State, req: IncomingMessage, res: ServerResponse, url: URL) {
  const header = req.headers['x-identity-header'];
  if (typeof header !== 'string' || !same(header, state.identityHeader)) {
    state.refused++;
    return send(res, 401, {
      statusCode: 401,
      message: 'Unauthorized: the X-IDENTITY-HEADER value is missing or wrong.',
    });
  }
  if (url.searchParams.get('api-version') !== '2019-08-01')
    return send(res, 400, { statusCode: 400, message: 'Unsupported api-version.' });
  const clientId = url.searchParams.get('client_id');
  if (clientId !== null && !same(clientId, state.managedClientId))
    return send(res, 400, { statusCode: 400, message: 'Unable to load the proper Managed Identity.' });
  if (url.searchParams.get('resource') !== RESOURCE)
    return send(res, 400, { statusCode: 400, message: `No access to resource '${url.searchParams.get('resource')}'.` });
  const token = randomBytes(32).toString('base64url');
  state.tokens.set(token, Date.now() + 3_600_000);
  send(res, 200, {
    access_token: token,
    expires_on: String(Math.floor(Date.now() / 1000) + 3600),
    resource: RESOURCE,
    token_type: 'Bearer',
    client_id: clientId ?? state.clientId,
  });
}

/** Key Vault's check of every call: a bearer token the authority issued and that has not expired, or the challenge. */
function authorized(state: State, req: IncomingMessage, res: ServerResponse): boolean {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  const expires = token === undefined ? undefined : state.tokens.get(token);
  if (expires !== undefined && expires > Date.now()) return true;
  if (token !== undefined) state.refused++;
  const challenge = `Bearer authorization="${state.url}/${state.tenantId}", resource="${RESOURCE}"`;
  const message =
    token === undefined
      ? 'AKV10000: Request is missing a Bearer or PoP token.'
      : 'AKV10022: Invalid audience or token.';
  send(res, 401, { error: { code: 'Unauthorized', message } }, { 'www-authenticate': challenge });
  return false;
}

function jwkOf(state: State, key: HeldKey) {
  const kid = `${state.url}/keys/${key.name}/${key.version}`;
  const attributes = {
    enabled: true,
    created: 1_700_000_000,
    updated: 1_700_000_000,
    recoveryLevel: 'Recoverable+Purgeable',
    exportable: false,
  };
  return { key: { kid, kty: 'EC-HSM', key_ops: ['sign', 'verify'], crv: key.crv, x: key.x, y: key.y }, attributes };
}

function vaultCall(state: State, req: IncomingMessage, res: ServerResponse, url: URL, body: string) {
  const m = /^\/keys\/([^/]+)(?:\/([^/]*))?(\/sign)?\/?$/.exec(url.pathname);
  if (!m || !url.searchParams.get('api-version'))
    return send(res, 400, {
      error: { code: 'BadParameter', message: 'The request URI is not valid or lacks api-version.' },
    });
  if (!authorized(state, req, res)) return;
  const operation = m[3] ? 'sign' : 'getKey';
  state.calls[operation] = (state.calls[operation] ?? 0) + 1;
  const fault = state.faults.find((f) => f.operation === operation && f.times > 0);
  if (fault) {
    fault.times--;
    if (fault.fault === 'hang') return; // never answered: the client's deadline must end the call
    return send(
      res,
      429,
      { error: { code: 'Throttled', message: 'Request was not processed because too many requests were received.' } },
      { 'retry-after': '0' },
    );
  }
  const key = state.keys.get(m[1]!);
  if (!key || (m[2] && m[2] !== key.version))
    return send(res, 404, {
      error: { code: 'KeyNotFound', message: `A key with (name/id) ${m[1]} was not found in this key vault.` },
    });
  if (operation === 'getKey') return send(res, 200, jwkOf(state, key));
  if (req.method !== 'POST' || !m[2])
    return send(res, 405, { error: { code: 'BadParameter', message: 'sign needs POST on a key version' } });
  let input: { alg?: string; value?: string };
  try {
    input = JSON.parse(body);
  } catch {
    return send(res, 400, { error: { code: 'BadParameter', message: 'The body is not JSON.' } });
  }
  const digest = Buffer.from(String(input.value ?? ''), 'base64url');
  const alg = key.crv === 'P-256K' ? 'ES256K' : 'ES256';
  if (input.alg !== alg)
    return send(res, 400, {
      error: { code: 'BadParameter', message: `Algorithm ${input.alg} is not valid for a ${key.crv} key.` },
    });
  if (digest.length !== 32)
    return send(res, 400, { error: { code: 'BadParameter', message: 'Invalid digest length.' } });
  if (key.crv !== 'P-256K')
    return send(res, 400, { error: { code: 'BadParameter', message: 'signing with a P-256 key is not simulated' } });
  send(res, 200, { kid: jwkOf(state, key).key.kid, value: rawSignature(key, digest).toString('base64url') });
}

async function route(state: State, req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', state.url);
  const openid = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname);
  if (openid) {
    state.calls.openid = (state.calls.openid ?? 0) + 1;
    return openidConfiguration(state, res, openid[1]!);
  }
  // Reflecting: the token request (the client secret in its body) and any vault call with a bearer token; the
  // OpenID configuration and the vault's challenge to a request without one are served, so the client gets that far.
  if (state.reflecting && (!url.pathname.startsWith('/keys/') || req.headers.authorization)) {
    return url.pathname.startsWith('/keys/')
      ? send(res, 401, { error: { code: 'Unauthorized', message: reflection(req, body) } })
      : aadError(res, 401, 'invalid_client', `AADSTS7000215: ${reflection(req, body)}`);
  }
  const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
  if (token && req.method === 'POST') {
    state.calls.token = (state.calls.token ?? 0) + 1;
    return issueToken(state, res, token[1]!, new URLSearchParams(body));
  }
  if (url.pathname === '/msi/token' && req.method === 'GET') {
    state.calls.managedIdentity = (state.calls.managedIdentity ?? 0) + 1;
    return managedIdentityToken(state, req, res, url);
  }
  if (url.pathname.startsWith('/keys/')) return vaultCall(state, req, res, url, body);
  send(res, 404, { error: { code: 'NotFound', message: `${url.pathname} is not simulated` } });
}

/** `keyName`: the secp256k1 key's name (default `evm-signer`), e.g. the name an example config already names. */
export async function startAzureKeyVaultSim(options: { keyName?: string } = {}): Promise<AzureKeyVaultSim> {
  const dir = mkdtempSync(path.join(tmpdir(), 'azure-kv-sim-'));
  const { caFile, ...tlsOptions } = makeCertificate(dir);
  const federatedTokenFile = path.join(dir, 'federated-token');
  const held = [makeKey(options.keyName ?? 'evm-signer', 'P-256K'), makeKey('p256-key', 'P-256')];
  const state: State = {
    url: '',
    tenantId: randomUUID(),
    clientId: randomUUID(),
    clientSecret: randomBytes(30).toString('base64url'),
    federatedToken: randomBytes(48).toString('base64url'),
    identityHeader: randomBytes(24).toString('base64url'),
    managedClientId: randomUUID(),
    keys: new Map(held.map((k) => [k.name, k])),
    tokens: new Map(),
    calls: {},
    faults: [],
    refused: 0,
    reflecting: false,
  };
  writeFileSync(federatedTokenFile, state.federatedToken, { mode: 0o600 });
  const server = createServer(tlsOptions, (req, res) => void route(state, req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: state.url,
    caFile,
    tenantId: state.tenantId,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    federatedTokenFile,
    identityEndpoint: `${state.url}/msi/token`,
    identityHeader: state.identityHeader,
    managedClientId: state.managedClientId,
    keys: { secp256k1: held[0]!.name, p256: held[1]!.name },
    calls: state.calls,
    get refused() {
      return state.refused;
    },
    failNext(operation, fault, times = 1) {
      state.faults.push({ operation, fault, times });
    },
    reflect(on) {
      state.reflecting = on;
    },
    clearFaults() {
      state.faults.length = 0;
    },
    trust() {
      tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(caFile, 'utf8')]);
    },
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
