// The OpenZeppelin Relayer's own config/config.example.json starts Relaybox unchanged: its keystore signer (made here),
// its networks directory (written here, the EVM one pointed at a test anvil), its policies, its env-held secrets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil, type TestAnvil } from '../support/anvil.ts';
import { makeKeystore } from '../support/keystore.ts';
import { evmBody } from '../transactions/fixtures.ts';

const PASSPHRASE = 'reference keystore passphrase';
const WEBHOOK_KEY = 'a-webhook-signing-key-of-more-than-32-characters';
const UNREACHABLE = 'http://127.0.0.1:9';

let anvil: TestAnvil;
let root: string;
const cwd = process.cwd();

before(async () => {
  anvil = await startAnvil({ chainId: 11155111 });
  root = mkdtempSync(path.join(tmpdir(), 'relaybox-reference-'));
  mkdirSync(path.join(root, 'config', 'keys'), { recursive: true });
  mkdirSync(path.join(root, 'config', 'networks'));
  copyFileSync(
    path.join(import.meta.dirname, '..', 'fixtures', 'reference', 'config.example.json'),
    path.join(root, 'config', 'config.json'),
  );
  const keystore = makeKeystore(Buffer.from(ANVIL_KEYS[0].slice(2), 'hex'), PASSPHRASE);
  writeFileSync(path.join(root, 'config', 'keys', 'local-signer.json'), JSON.stringify(keystore));
  const networks = (list: object[]) => JSON.stringify({ networks: list });
  writeFileSync(
    path.join(root, 'config', 'networks', 'ethereum.json'),
    networks([{ ...anvil.network('sepolia'), is_testnet: true }]),
  );
  writeFileSync(
    path.join(root, 'config', 'networks', 'solana.json'),
    networks([
      { type: 'solana', network: 'devnet', rpc_urls: [UNREACHABLE], average_blocktime_ms: 400, is_testnet: true },
      {
        type: 'solana',
        network: 'mainnet-beta',
        rpc_urls: [UNREACHABLE],
        average_blocktime_ms: 400,
        is_testnet: false,
      },
    ]),
  );
  writeFileSync(
    path.join(root, 'config', 'networks', 'stellar.json'),
    networks([
      {
        type: 'stellar',
        network: 'testnet',
        rpc_urls: [UNREACHABLE],
        passphrase: 'Test SDF Network ; September 2015',
        average_blocktime_ms: 5000,
        is_testnet: true,
      },
    ]),
  );
  // The example names its networks directory and keystore from the repository root ("./config/networks").
  process.chdir(root);
});

after(async () => {
  process.chdir(cwd);
  await anvil.stop();
  rmSync(root, { recursive: true, force: true });
});

const env = () => ({
  CONFIG_PATH: path.join(root, 'config', 'config.json'),
  KEYSTORE_PASSPHRASE: PASSPHRASE,
  WEBHOOK_SIGNING_KEY: WEBHOOK_KEY,
});

test("the reference's example config starts Relaybox unchanged, its relayers answering in the reference's shape", async (t) => {
  const s = await build(t, { env: env() });
  const list = await s.request('GET', '/api/v1/relayers');
  assert.equal(list.status, 200);
  const byId = Object.fromEntries(list.body.data.map((r: { id: string }) => [r.id, r]));
  assert.deepEqual(Object.keys(byId).sort(), [
    'sepolia-example',
    'solana-example',
    'solana-mainnet-example',
    'stellar-example',
  ]);
  const evm = byId['sepolia-example'];
  assert.equal(evm.address, ANVIL_ADDRESSES[0], 'the keystore holds the key');
  assert.equal(evm.signer_id, 'local-signer');
  assert.deepEqual(evm.policies, { min_balance: 0 });
  assert.equal(evm.notification_id, 'notification-example');
  assert.equal(evm.system_disabled, false);
  assert.equal(byId['solana-example'].policies.fee_payment_strategy, 'user');
  assert.equal(byId['solana-example'].policies.swap_config.strategy, 'jupiter-swap');
  assert.match(byId['stellar-example'].address, /^G[A-Z2-7]{55}$/, 'the same 32 bytes are the Stellar seed');
  assert.match(byId['solana-example'].address, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

  const sent = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', { body: evmBody() });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.from, ANVIL_ADDRESSES[0]);

  // Its notification has an empty URL: the event of that send waits, with the reason, for a URL to be set.
  const tried = async () =>
    (
      (await s.request('GET', '/api/v1/notifications/notification-example/deliveries')).body.data as Array<{
        last_error: string | null;
      }>
    ).find((d) => d.last_error);
  let attempt = await tried();
  for (let i = 0; i < 200 && !attempt; i++) {
    await new Promise((r) => setTimeout(r, 25));
    attempt = await tried();
  }
  assert.match(attempt?.last_error ?? '', /the notification has no URL/);

  const signers = await s.request('GET', '/api/v1/signers');
  assert.deepEqual(signers.body.data, [{ id: 'local-signer', type: 'local', config: {} }]);
  const hook = await s.request('GET', '/api/v1/notifications/notification-example');
  assert.equal(hook.body.data.url, '');
  assert.equal(hook.body.data.has_signing_key, true);

  const logs = s.rawLogs();
  for (const secret of [PASSPHRASE, WEBHOOK_KEY, ANVIL_KEYS[0].slice(2)])
    assert.ok(!logs.includes(secret), 'no secret in the logs');
});

test('a wrong keystore passphrase or a missing variable stops the start with a reason', async () => {
  await assert.rejects(
    build(undefined, { env: { ...env(), KEYSTORE_PASSPHRASE: 'not it' } }),
    /signer 'local-signer': keystore .* wrong passphrase/,
  );
  const { KEYSTORE_PASSPHRASE: _gone, ...withoutPassphrase } = env();
  await assert.rejects(
    build(undefined, { env: withoutPassphrase }),
    /signers\.0\.config\.passphrase: environment variable KEYSTORE_PASSPHRASE is not set/,
  );
  const { WEBHOOK_SIGNING_KEY: _key, ...withoutKey } = env();
  await assert.rejects(
    build(undefined, { env: withoutKey }),
    /notifications\.0\.signing_key: environment variable WEBHOOK_SIGNING_KEY is not set/,
  );
});
