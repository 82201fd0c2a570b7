// Each of the seven remote signer types against its simulated provider (test/support/simulators/) set to reflect:
// every request is answered with the provider's own error shape whose message is the request itself, headers and
// body (test/support/simulators/reflect.ts), as a misbehaving or hostile endpoint may answer. Through the service:
// the signer is created through the API, then a relayer on it (the types that call the provider at creation), or a
// signature asked of it (the types that call it only to sign). Neither the answer nor any log line at info level or
// above may hold the reflected text or a credential: the session token, the client secret, the AppRole ids, the
// API keys, a bearer JWT. The provider's answer may be in a debug line, scrubbed.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-base';
import { build, type TestServer } from '../helper.ts';
import { startAwsKmsSim, type AwsKmsSim } from '../support/simulators/aws-kms.ts';
import { startAzureKeyVaultSim, type AzureKeyVaultSim } from '../support/simulators/azure-keyvault.ts';
import { startCdpSim, type CdpSim } from '../support/simulators/cdp.ts';
import { startGoogleKmsSim, type GoogleKmsSim } from '../support/simulators/google-kms.ts';
import { REFLECTED } from '../support/simulators/reflect.ts';
import { startTurnkeySim, type TurnkeySim } from '../support/simulators/turnkey.ts';
import { startVaultSim, type VaultSim } from '../support/simulators/vault.ts';

let aws: AwsKmsSim;
let google: GoogleKmsSim;
let azure: AzureKeyVaultSim;
let vault: VaultSim;
let turnkey: TurnkeySim;
let cdp: CdpSim;
const SESSION_TOKEN = `IQoJb3JpZ2luX2VjE${randomBytes(40).toString('base64url')}`;
let transitPubkey: string;
let turnkeyKey: { privateKeyId: string; publicKey: string };
let cdpAccount: string;

/** The service's environment, as an operator gives it: each client's endpoint and the AWS SDK's credentials. */
const saved: Record<string, string | undefined> = {};
function setEnv(vars: Record<string, string>): void {
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
}

before(async () => {
  [aws, google, azure, vault, turnkey, cdp] = await Promise.all([
    startAwsKmsSim(),
    startGoogleKmsSim(),
    startAzureKeyVaultSim(),
    startVaultSim(),
    startTurnkeySim(),
    startCdpSim(),
  ]);
  azure.trust();
  vault.putKv('secret', 'evm-key', { value: randomBytes(32).toString('hex') });
  transitPubkey = vault.addTransitKey('transit', 'relayer-key');
  turnkeyKey = turnkey.addPrivateKey('secp256k1');
  cdpAccount = cdp.addEvmAccount();
  setEnv({
    AWS_ACCESS_KEY_ID: aws.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    AWS_ENDPOINT_URL_KMS: aws.url,
    GOOGLE_CLOUD_KMS_ENDPOINT: google.url,
    AZURE_AUTHORITY_HOST: azure.url,
    TURNKEY_API_BASE_URL: turnkey.url,
    CDP_API_BASE_URL: cdp.url,
  });
  aws.reflect(true);
  google.reflect(true);
  azure.reflect(true);
  vault.setFault('reflect');
  turnkey.setFault('reflect');
  cdp.setFault('reflect');
});

after(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await Promise.all([aws.stop(), google.stop(), azure.stop(), vault.close(), turnkey.close(), cdp.close()]);
});

interface Case {
  type: string;
  config: () => Record<string, unknown>;
  /** The network the relayer is on (the example config's). */
  network: 'sepolia' | 'stellar-testnet';
  /** When the provider is first called: at the relayer's creation, or at its first signature. */
  calledAt: 'create' | 'sign';
  /** What must never be shown: the credentials the request carried. */
  secrets: () => string[];
}

const CASES: Case[] = [
  {
    type: 'aws_kms',
    config: () => ({ region: aws.region, key_id: aws.keys.ECC_SECG_P256K1 }),
    network: 'sepolia',
    calledAt: 'create',
    secrets: () => [SESSION_TOKEN, aws.secretAccessKey],
  },
  {
    type: 'google_cloud_kms',
    config: () => {
      const a = google.serviceAccount;
      return {
        service_account: {
          project_id: a.project_id,
          private_key_id: a.private_key_id,
          private_key: a.private_key,
          client_email: a.client_email,
          client_id: a.client_id,
        },
        key: {
          location: google.location,
          key_ring_id: google.keyRing,
          key_id: google.keys.EC_SIGN_SECP256K1_SHA256,
          key_version: 1,
        },
      };
    },
    network: 'sepolia',
    calledAt: 'create',
    secrets: () => [google.serviceAccount.private_key.split('\n')[1]!, google.serviceAccount.private_key_id],
  },
  {
    type: 'azure_key_vault',
    config: () => ({
      auth_type: 'client_secret',
      tenant_id: azure.tenantId,
      client_id: azure.clientId,
      client_secret: azure.clientSecret,
      vault_url: azure.url,
      key_name: azure.keys.secp256k1,
    }),
    network: 'sepolia',
    calledAt: 'create',
    secrets: () => [azure.clientSecret],
  },
  {
    type: 'vault',
    config: () => ({ address: vault.url, role_id: vault.roleId, secret_id: vault.secretId, key_name: 'evm-key' }),
    network: 'sepolia',
    calledAt: 'create',
    secrets: () => [vault.roleId, vault.secretId],
  },
  {
    type: 'vault_transit',
    config: () => ({
      address: vault.url,
      role_id: vault.roleId,
      secret_id: vault.secretId,
      key_name: 'relayer-key',
      pubkey: transitPubkey,
    }),
    network: 'stellar-testnet',
    calledAt: 'sign',
    secrets: () => [vault.roleId, vault.secretId],
  },
  {
    type: 'turnkey',
    config: () => ({
      api_public_key: turnkey.apiKey.apiPublicKey,
      api_private_key: turnkey.apiKey.apiPrivateKey,
      organization_id: turnkey.organizationId,
      private_key_id: turnkeyKey.privateKeyId,
      public_key: turnkeyKey.publicKey,
    }),
    network: 'sepolia',
    calledAt: 'sign',
    secrets: () => [turnkey.apiKey.apiPrivateKey],
  },
  {
    type: 'cdp',
    config: () => ({
      api_key_id: cdp.credentials.apiKeyId,
      api_key_secret: cdp.credentials.apiKeySecret,
      wallet_secret: cdp.credentials.walletSecret,
      account_address: cdpAccount,
    }),
    network: 'sepolia',
    calledAt: 'sign',
    secrets: () => [cdp.credentials.apiKeySecret, cdp.credentials.walletSecret],
  },
];

// A bearer token or JWT of any request (Google's and CDP's signed JWTs, Azure's access token) has this shape.
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\./;

/** An unsigned Stellar payment for the example's testnet: what a Stellar relayer's sign-transaction signs. */
function stellarXdr(): string {
  return new TransactionBuilder(new Account(Keypair.random().publicKey(), '41'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build()
    .toXDR();
}

/** What the service answered when the provider was first called: the relayer's creation, or a signature. */
async function providerCalled(s: TestServer, c: Case, signerId: string): Promise<{ status: number; text: string }> {
  const relayer = await s.request('POST', '/api/v1/relayers', {
    body: {
      id: `r-${signerId}`,
      name: c.type,
      network: c.network,
      network_type: c.network === 'sepolia' ? 'evm' : 'stellar',
      paused: false,
      signer_id: signerId,
    },
  });
  if (c.calledAt === 'create') return relayer;
  assert.ok(relayer.status < 300, `${c.type}: no provider call at creation: ${relayer.text}`);
  const base = `/api/v1/relayers/r-${signerId}`;
  return c.network === 'sepolia'
    ? s.request('POST', `${base}/sign`, { body: { message: 'hello' } })
    : s.request('POST', `${base}/sign-transaction`, { body: { unsigned_xdr: stellarXdr() } });
}

for (const c of CASES) {
  test(`${c.type}: a provider that repeats its request gets none of it, and no credential, into the answer or a log`, async (t) => {
    // The providers' endpoints as an operator would set them; the AWS SDK reads its own from the process environment.
    const s = await build(t, {
      env: {
        GOOGLE_CLOUD_KMS_ENDPOINT: google.url,
        AZURE_AUTHORITY_HOST: azure.url,
        TURNKEY_API_BASE_URL: turnkey.url,
        CDP_API_BASE_URL: cdp.url,
      },
    });
    const signerId = `reflect-${c.type.replace(/_/g, '-')}`;
    const created = await s.request('POST', '/api/v1/signers', {
      body: { id: signerId, type: c.type, config: c.config() },
    });
    assert.equal(created.status, 201, created.text);
    const answer = await providerCalled(s, c, signerId);
    t.diagnostic(`${answer.status} ${answer.text}`);
    assert.ok(answer.status >= 400, `${c.type}: the provider refused, so the service did: ${answer.text}`);
    assert.ok(answer.text.includes(`signer '${signerId}'`), `${c.type}: the answer names the signer: ${answer.text}`);
    assert.ok(!answer.text.includes(REFLECTED), `${c.type}: the provider's text is not in the answer: ${answer.text}`);
    assert.ok(!JWT.test(answer.text) && !/Bearer /i.test(answer.text), `${c.type}: no bearer token in the answer`);
    for (const secret of c.secrets())
      assert.ok(!answer.text.includes(secret), `${c.type}: a credential is in the answer: ${answer.text}`);

    const logs = s.rawLogs();
    for (const secret of c.secrets()) assert.ok(!logs.includes(secret), `${c.type}: a credential is in the logs`);
    for (const line of s.logs) {
      const text = JSON.stringify(line);
      assert.ok(!JWT.test(text), `${c.type}: a bearer JWT is in a log line: ${text.slice(0, 3000)}`);
      if (text.includes(REFLECTED))
        assert.equal(
          line.level,
          20,
          `${c.type}: the provider's text is only ever at debug level: ${text.slice(0, 300)}`,
        );
    }
  });
}

test("the log scrubber knows the signer clients' credential variables, whatever config names them", async (t) => {
  const azureSecret = `azure-${randomBytes(18).toString('hex')}`;
  const vaultToken = `hvs.${randomBytes(20).toString('base64url')}`;
  const cdpSecret = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'der', type: 'pkcs8' })
    .toString('base64');
  const s = await build(t, {
    env: { AZURE_CLIENT_SECRET: azureSecret, VAULT_TOKEN: vaultToken, CDP_API_KEY_SECRET: cdpSecret },
  });
  // A client's error that repeats them, logged by the service as any other line: a 404 whose path carries them.
  await s.request('GET', `/api/v1/relayers/${encodeURIComponent(`${SESSION_TOKEN}-${azureSecret}-${vaultToken}`)}`);
  const logs = s.rawLogs();
  assert.match(logs, /\[redacted\]-\[redacted\]-\[redacted\]/, 'the path was logged, each secret in it scrubbed');
  for (const secret of [SESSION_TOKEN, azureSecret, vaultToken])
    assert.ok(!logs.includes(secret), `scrubbed: ${secret.slice(0, 8)}…`);
});
