// HashiCorp Vault's HTTP API, as the `vault` and `vault_transit` signers use it (Vault documents this API as its
// interface; there is no official Node client): AppRole login (POST /v1/auth/approle/login), a KV v2 read
// (GET /v1/<mount>/data/<name>) and a Transit sign (POST /v1/<mount>/sign/<key>), with X-Vault-Token and
// X-Vault-Namespace. The token is kept until its lease ends and is renewed by logging in again.
import { baseUrl, bodyText, jsonOrThrow, remoteCall, RemoteSignerError } from './remote-call.ts';

export interface VaultSettings {
  signerId: string;
  /** e.g. https://vault.example.com:8200 */
  address: string;
  namespace?: string;
  roleId: string;
  secretId: string;
  timeoutMs: number;
}

export interface VaultApi {
  /** The KV v2 secret's data (`{ value: … }` for a signer key); rejects when it is missing. */
  readKv(mount: string, name: string): Promise<Record<string, unknown>>;
  /** Transit's signature of `input` with `key`: the raw bytes (the `vault:v1:` prefix taken off). */
  transitSign(mount: string, key: string, input: Uint8Array): Promise<Uint8Array>;
}

// Tokens are renewed this long before their lease ends, so a call never carries one about to expire.
const RENEW_MARGIN_MS = 30_000;

export function createVaultApi(settings: VaultSettings): VaultApi {
  const base = baseUrl(settings.signerId, settings.address, "'address' (the Vault server)");
  const who = `signer '${settings.signerId}'`;
  let token: { value: string; until: number } | undefined;

  const headers = (extra: Record<string, string> = {}) => {
    const h: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (settings.namespace) h['x-vault-namespace'] = settings.namespace;
    return h;
  };

  async function login(): Promise<string> {
    const label = `${who}: Vault AppRole login`;
    const auth = await remoteCall(label, settings.timeoutMs, async (signal) => {
      const res = await fetch(`${base}/v1/auth/approle/login`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ role_id: settings.roleId, secret_id: settings.secretId }),
        signal,
      });
      // Vault answers a wrong role_id or secret_id with 400 ("invalid role or secret ID").
      if (res.status === 400)
        throw new RemoteSignerError(`${label}: HTTP 400: refused (check role_id and secret_id)`, await bodyText(res));
      return (await jsonOrThrow(label, res))?.auth;
    });
    if (typeof auth?.client_token !== 'string')
      throw new RemoteSignerError(`${label}: the answer holds no client token`);
    const leaseMs = Number(auth.lease_duration) > 0 ? Number(auth.lease_duration) * 1000 : 45 * 60_000;
    token = { value: auth.client_token, until: Date.now() + Math.max(leaseMs - RENEW_MARGIN_MS, 1000) };
    return token.value;
  }

  /** One authenticated call; a 403 (token revoked or expired early) logs in again once. */
  // biome-ignore lint/suspicious/noExplicitAny: Vault's JSON answer: each caller reads the fields its API documents
  async function authed(label: string, method: string, path: string, body?: unknown): Promise<any> {
    for (let attempt = 0; ; attempt++) {
      const current = token && token.until > Date.now() ? token.value : await login();
      const res = await remoteCall(label, settings.timeoutMs, (signal) =>
        fetch(`${base}/v1/${path}`, {
          method,
          headers: headers({ 'x-vault-token': current }),
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        }),
      );
      if (res.status === 403 && attempt === 0) {
        await res.body?.cancel();
        token = undefined;
        continue;
      }
      return remoteCall(label, settings.timeoutMs, () => jsonOrThrow(label, res));
    }
  }

  const segment = (s: string) => s.split('/').map(encodeURIComponent).join('/');

  return {
    async readKv(mount, name) {
      const label = `${who}: Vault KV read of '${name}' at '${mount}'`;
      const answer = await authed(label, 'GET', `${segment(mount)}/data/${segment(name)}`);
      const data = answer?.data?.data;
      if (data === null || typeof data !== 'object')
        throw new RemoteSignerError(`${label}: the secret has no data (deleted version?)`);
      return data as Record<string, unknown>;
    },
    async transitSign(mount, key, input) {
      const label = `${who}: Vault Transit sign with '${key}' at '${mount}'`;
      const answer = await authed(label, 'POST', `${segment(mount)}/sign/${segment(key)}`, {
        input: Buffer.from(input).toString('base64'),
      });
      const signature = answer?.data?.signature;
      if (typeof signature !== 'string') throw new RemoteSignerError(`${label}: the answer holds no signature`);
      return new Uint8Array(Buffer.from(signature.replace(/^vault:v\d+:/, ''), 'base64'));
    },
  };
}
