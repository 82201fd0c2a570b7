// The `cdp` signer against a simulated CDP v2 API (test/support/simulators/cdp.ts) that verifies the API key's bearer
// JWT and the X-Wallet-Auth JWT of every request, as made by Coinbase's SDK (@coinbase/cdp-sdk/auth). An EVM send
// through the service is confirmed on anvil; a Solana transaction is signed through the service.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { keccak256, recoverAddress, toHex } from 'viem';
import type { SignerConfig } from '../../src/config/config.ts';
import { createSigner as adapter } from '../../src/signers/cdp/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { newCdpCredentials, startCdpSim, type CdpCredentials, type CdpSim } from '../support/simulators/cdp.ts';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { build } from '../helper.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

const createSigner = fromEnv(adapter);

const cdp = await startCdpSim();
after(() => cdp.close());
// anvil's publicly known account #0, held by the simulated CDP: a development key, never real funds.
const EVM_ACCOUNT = cdp.addEvmAccount(Buffer.from(ANVIL_KEYS[0].slice(2), 'hex'));
const SOLANA_ACCOUNT = cdp.addSolanaAccount();
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const digest = keccak256(toHex('relaybox cdp'));

function entry(
  account: string,
  credentials: CdpCredentials = cdp.credentials,
  config: Record<string, unknown> = {},
): SignerConfig {
  return {
    id: 'cdp-signer',
    type: 'cdp',
    config: {
      api_key_id: credentials.apiKeyId,
      api_key_secret: { type: 'plain', value: credentials.apiKeySecret },
      wallet_secret: { type: 'plain', value: credentials.walletSecret },
      account_address: account,
      ...config,
    },
  } as SignerConfig;
}
const env = (sim: CdpSim = cdp, extra: Record<string, string> = {}) =>
  ({ CDP_API_BASE_URL: sim.url, ...extra }) as NodeJS.ProcessEnv;

function solanaMessage(
  feePayer: string,
  hash = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k',
): { wire: string; message: Uint8Array } {
  const m = pipe(
    createTransactionMessage({ version: 0 }),
    (x) => setTransactionMessageFeePayer(address(feePayer), x),
    (x) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(hash), lastValidBlockHeight: 100n }, x),
    (x) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('cdp'),
        },
        x,
      ),
  );
  const compiled = compileTransaction(m);
  return { wire: getBase64EncodedWireTransaction(compiled), message: new Uint8Array(compiled.messageBytes) };
}

test('EVM: the address is account_address; CDP signs the hash (Ed25519 and ES256 API keys) and v is recovered', async () => {
  for (const credentials of [cdp.credentials, cdp.es256Credentials]) {
    const signer = await createSigner(entry(EVM_ACCOUNT, credentials), 'evm', { env: env() });
    assert.equal(signer.address, EVM_ACCOUNT);
    const signs = cdp.stats.signs;
    const signature = await signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex'));
    assert.equal(cdp.stats.signs, signs + 1);
    assert.equal(await recoverAddress({ hash: digest, signature: toHex(signature) }), EVM_ACCOUNT);
  }
});

test('Solana: CDP signs the transaction; the signature verifies against the account', async () => {
  const signer = await createSigner(entry(SOLANA_ACCOUNT), 'solana', { env: env() });
  assert.equal(signer.address, SOLANA_ACCOUNT);
  const { message } = solanaMessage(SOLANA_ACCOUNT);
  const key = createPublicKey({
    key: Buffer.concat([SPKI_ED25519, Buffer.from(getBase58Encoder().encode(SOLANA_ACCOUNT))]),
    format: 'der',
    type: 'spki',
  });
  assert.ok(verify(null, message, key, await signer.ed25519!.sign(message)));
  await assert.rejects(
    signer.ed25519!.sign(solanaMessage(cdp.addSolanaAccount()).message),
    /CDP sign transaction: account .* is not a signer of this transaction/,
  );
});

test('a wrong API key secret or a wrong wallet secret is refused (401) by the JWT checks, naming the signer', async () => {
  const stranger = newCdpCredentials().credentials;
  const before = { ...cdp.stats };
  const wrongApi = await createSigner(
    entry(EVM_ACCOUNT, { ...cdp.credentials, apiKeySecret: stranger.apiKeySecret }),
    'evm',
    { env: env() },
  );
  const wrongWallet = await createSigner(
    entry(EVM_ACCOUNT, { ...cdp.credentials, walletSecret: stranger.walletSecret }),
    'evm',
    { env: env() },
  );
  const bytes = Buffer.from(digest.slice(2), 'hex');
  await assert.rejects(wrongApi.signEvmDigest!(bytes), (err: Error) => {
    assert.equal(
      err.message,
      "signer 'cdp-signer': CDP sign hash: HTTP 401: authentication refused (check the credentials) (unauthorized)",
    );
    return true;
  });
  await assert.rejects(
    wrongWallet.signEvmDigest!(bytes),
    /^RemoteSignerError: signer 'cdp-signer': CDP sign hash: HTTP 401: authentication refused \(check the credentials\) \(unauthorized\)$/,
  );
  assert.equal(cdp.stats.refusedJwts, before.refusedJwts + 1, 'the API key JWT was checked');
  assert.equal(cdp.stats.refusedWalletJwts, before.refusedWalletJwts + 1, 'the wallet JWT was checked');
});

test('a malformed API key secret or wallet secret, or an Ed25519 secret whose halves are two keys, is refused at creation, naming the signer and the field', async () => {
  const stranger = newCdpCredentials().credentials;
  const create = (credentials: Partial<typeof cdp.credentials>) =>
    createSigner(entry(EVM_ACCOUNT, { ...cdp.credentials, ...credentials }), 'evm', { env: env() });
  const before = { ...cdp.stats };
  await assert.rejects(create({ apiKeySecret: 'not-a-key' }), (err: Error) => {
    assert.match(
      err.message,
      /^signer 'cdp-signer': 'api_key_secret' must be the CDP API key's secret: a base64 Ed25519 key \(64 bytes\) or an EC P-256 private key in PEM$/,
    );
    assert.ok(!err.message.includes('not-a-key'));
    return true;
  });
  const mine = Buffer.from(cdp.credentials.apiKeySecret, 'base64');
  const theirs = Buffer.from(stranger.apiKeySecret, 'base64');
  const mixed = Buffer.concat([mine.subarray(0, 32), theirs.subarray(32)]).toString('base64');
  await assert.rejects(
    create({ apiKeySecret: mixed }),
    /^Error: signer 'cdp-signer': 'api_key_secret' holds an Ed25519 seed and a public key that do not match/,
  );
  await assert.rejects(
    create({ apiKeySecret: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
    /'api_key_secret' must be the CDP API key's secret: an EC P-256 private key in PEM/,
  );
  await assert.rejects(
    create({ walletSecret: 'bm90IGEga2V5' }),
    /^Error: signer 'cdp-signer': 'wallet_secret' must be the CDP wallet secret: an EC P-256 private key, base64 DER \(PKCS#8\)$/,
  );
  assert.deepEqual({ ...cdp.stats }, before, 'refused before any request');
  assert.ok(
    await create({ apiKeySecret: newCdpCredentials('es256').credentials.apiKeySecret }),
    'an ES256 secret in PEM is accepted',
  );
});

test('an account CDP does not hold, a Stellar relayer and account addresses of the other network are refused clearly', async () => {
  const unknown = await createSigner(entry('0x00000000000000000000000000000000000000b1'), 'evm', { env: env() });
  await assert.rejects(
    unknown.signEvmDigest!(Buffer.from(digest.slice(2), 'hex')),
    /signer 'cdp-signer': CDP sign hash: HTTP 404: not found/,
  );
  await assert.rejects(
    createSigner(entry(SOLANA_ACCOUNT), 'stellar', { env: env() }),
    /signer 'cdp-signer': a cdp signer signs for EVM and Solana, not Stellar/,
  );
  await assert.rejects(
    createSigner(entry(SOLANA_ACCOUNT), 'evm', { env: env() }),
    /'account_address' must be a CDP EVM account/,
  );
  await assert.rejects(
    createSigner(entry(EVM_ACCOUNT), 'solana', { env: env() }),
    /'account_address' must be a CDP Solana account/,
  );
});

test('a hanging, throttling or unreachable CDP fails that sign in bounded time, naming the signer; then it signs again', async (t) => {
  const sim = await startCdpSim();
  t.after(() => sim.close());
  const account = sim.addEvmAccount();
  const signer = await createSigner(entry(account, sim.credentials), 'evm', {
    env: env(sim, { SIGNER_TIMEOUT_MS: '300' }),
  });
  const bytes = Buffer.from(digest.slice(2), 'hex');
  sim.setFault('hang');
  await assert.rejects(signer.signEvmDigest!(bytes), {
    message: "signer 'cdp-signer': CDP sign hash: no answer within 300 ms (timed out)",
  });
  sim.setFault('throttle');
  await assert.rejects(
    signer.signEvmDigest!(bytes),
    /signer 'cdp-signer': CDP sign hash: HTTP 429: throttled by the service \(rate_limit_exceeded\)$/,
  );
  sim.setFault('ok');
  assert.equal((await signer.signEvmDigest!(bytes)).length, 65);
  const gone = await startCdpSim();
  await gone.close();
  const nowhere = await createSigner(entry(account, sim.credentials), 'evm', { env: env(gone) });
  await assert.rejects(
    nowhere.signEvmDigest!(bytes),
    /signer 'cdp-signer': CDP sign hash: unreachable \(ECONNREFUSED\)/,
  );
});

test('through the service: an EVM send is confirmed on anvil, and a Solana transaction is signed, by CDP accounts', async (t) => {
  const [anvil, solana] = await Promise.all([startAnvil(), startSolanaSim()]);
  t.after(() => Promise.all([anvil.stop(), solana.close()]));
  const secrets = {
    RELAYBOX_CDP_API_KEY_SECRET: cdp.credentials.apiKeySecret,
    RELAYBOX_CDP_WALLET_SECRET: cdp.credentials.walletSecret,
  };
  const cdpConfig = (account: string) => ({
    api_key_id: cdp.credentials.apiKeyId,
    api_key_secret: { type: 'env', value: 'RELAYBOX_CDP_API_KEY_SECRET' },
    wallet_secret: { type: 'env', value: 'RELAYBOX_CDP_WALLET_SECRET' },
    account_address: account,
  });
  const s = await build(t, {
    // The service's CDP is the simulator, as an operator's CDP_API_BASE_URL would name it.
    env: { ...secrets, CDP_API_BASE_URL: cdp.url },
    config: {
      networks: [
        anvil.network('anvil'),
        { type: 'solana', network: 'solana-sim', rpc_urls: [{ url: solana.url, weight: 100 }] },
      ],
      signers: [
        { id: 'cdp-evm', type: 'cdp', config: cdpConfig(EVM_ACCOUNT) } as SignerConfig,
        { id: 'cdp-sol', type: 'cdp', config: cdpConfig(SOLANA_ACCOUNT) } as SignerConfig,
      ],
      relayers: [
        { id: 'cdp-e', name: 'cdp evm', network: 'anvil', signer_id: 'cdp-evm' },
        {
          id: 'cdp-s',
          name: 'cdp solana',
          network: 'solana-sim',
          signer_id: 'cdp-sol',
          policies: { fee_payment_strategy: 'relayer' },
        },
      ],
      notifications: [],
      plugins: [],
    },
  });
  assert.equal(
    (await s.request('GET', '/api/v1/relayers/cdp-e')).body.data.address.toLowerCase(),
    EVM_ACCOUNT.toLowerCase(),
  );
  const to = '0x00000000000000000000000000000000000000a3';
  const sent = await s.request('POST', '/api/v1/relayers/cdp-e/transactions', {
    body: { to, value: '1000', speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const txUrl = `/api/v1/relayers/cdp-e/transactions/${sent.body.data.id}`;
  await waitFor(
    async () => (await s.request('GET', txUrl)).body.data,
    (tx) => ['mined', 'confirmed'].includes(tx.status),
    60_000,
    'mined',
  );
  assert.equal(BigInt(await anvil.rpc('eth_getBalance', [to, 'latest'])), 1000n);
  // The relayer simulates what it signs and keeps its min_balance: a funded fee payer, the network's blockhash.
  solana.airdrop(SOLANA_ACCOUNT, 1_000_000_000n);
  const { wire, message } = solanaMessage(SOLANA_ACCOUNT, solana.svm.latestBlockhash());
  const res = await s.request('POST', '/api/v1/relayers/cdp-s/sign-transaction', { body: { transaction: wire } });
  assert.equal(res.status, 200, res.text);
  const tx = getTransactionDecoder().decode(Buffer.from(res.body.data.transaction, 'base64'));
  const key = createPublicKey({
    key: Buffer.concat([SPKI_ED25519, Buffer.from(getBase58Encoder().encode(SOLANA_ACCOUNT))]),
    format: 'der',
    type: 'spki',
  });
  assert.ok(verify(null, message, key, new Uint8Array(tx.signatures[SOLANA_ACCOUNT as Address]!)));
  const logs = s.rawLogs();
  assert.ok(
    !logs.includes(cdp.credentials.walletSecret) && !logs.includes(cdp.credentials.apiKeySecret),
    'no secret logged',
  );
});
