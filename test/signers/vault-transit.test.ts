// The `vault_transit` signer against a simulated Vault (test/support/simulators/vault.ts) over HTTP: every Solana or
// Stellar signature is made by Transit with an Ed25519 key the simulator holds, and checked against `pubkey`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase58Encoder,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import type { SignerConfig } from '../../src/config/config.ts';
import { createSigner as adapter } from '../../src/signers/vault_transit/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { startVaultSim } from '../support/simulators/vault.ts';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { build } from '../helper.ts';

const createSigner = fromEnv(adapter);

const vault = await startVaultSim();
after(() => vault.close());
const PUBKEY = vault.addTransitKey('transit', 'relayer-key');
const OTHER_MOUNT_PUBKEY = vault.addTransitKey('transit-b', 'relayer-key');
vault.addTransitKey('transit', 'p256-key', 'ecdsa-p256');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const publicKey = (b64: string) =>
  createPublicKey({ key: Buffer.concat([SPKI_ED25519, Buffer.from(b64, 'base64')]), format: 'der', type: 'spki' });

function entry(config: Record<string, unknown> = {}): SignerConfig {
  return {
    id: 'transit-signer',
    type: 'vault_transit',
    config: {
      address: vault.url,
      role_id: { type: 'plain', value: vault.roleId },
      secret_id: { type: 'plain', value: vault.secretId },
      key_name: 'relayer-key',
      pubkey: PUBKEY,
      ...config,
    },
  } as SignerConfig;
}
const env = (extra: Record<string, string> = {}) => ({ ...extra }) as NodeJS.ProcessEnv;
const message = new TextEncoder().encode('a transaction message');

test('Solana and Stellar: the address is pubkey in each spelling; Transit signatures verify', async () => {
  const solana = await createSigner(entry(), 'solana', { env: env() });
  const stellar = await createSigner(entry(), 'stellar', { env: env() });
  assert.deepEqual(Buffer.from(getBase58Encoder().encode(solana.address)), Buffer.from(PUBKEY, 'base64'));
  assert.equal(stellar.address, StrKey.encodeEd25519PublicKey(Buffer.from(PUBKEY, 'base64')));
  const signsBefore = vault.stats.signs;
  for (const s of [solana, stellar])
    assert.ok(verify(null, message, publicKey(PUBKEY), await s.ed25519!.sign(message)));
  assert.equal(vault.stats.signs - signsBefore, 2, 'Vault made both signatures');
});

test('mount_point is honoured', async () => {
  const signer = await createSigner(entry({ mount_point: 'transit-b', pubkey: OTHER_MOUNT_PUBKEY }), 'solana', {
    env: env(),
  });
  assert.ok(verify(null, message, publicKey(OTHER_MOUNT_PUBKEY), await signer.ed25519!.sign(message)));
});

test('wrong credentials: the sign fails with the login refusal, naming the signer; the simulator refused it', async () => {
  const refused = vault.stats.refusedLogins;
  const signer = await createSigner(entry({ secret_id: { type: 'plain', value: 'wrong-secret-id' } }), 'solana', {
    env: env(),
  });
  await assert.rejects(signer.ed25519!.sign(message), (err: Error) => {
    assert.equal(
      err.message,
      "signer 'transit-signer': Vault AppRole login: HTTP 400: refused (check role_id and secret_id)",
    );
    return true;
  });
  assert.equal(vault.stats.refusedLogins, refused + 1);
});

test('every Transit call carries the token: a revoked token is refused (403) and the signer logs in again', async () => {
  const signer = await createSigner(entry(), 'solana', { env: env() });
  await signer.ed25519!.sign(message);
  const logins = vault.stats.logins;
  const refusedTokens = vault.stats.refusedTokens;
  vault.revokeTokens();
  assert.ok(verify(null, message, publicKey(PUBKEY), await signer.ed25519!.sign(message)));
  assert.equal(vault.stats.refusedTokens, refusedTokens + 1, 'the old token was refused');
  assert.equal(vault.stats.logins, logins + 1, 'one new login');
  const forged = await fetch(`${vault.url}/v1/transit/sign/relayer-key`, {
    method: 'POST',
    headers: { 'x-vault-token': 'hvs.forged' },
    body: JSON.stringify({ input: 'AA==' }),
  });
  assert.equal(forged.status, 403);
});

test('a key of the wrong type, a pubkey of another key, a missing key and EVM are refused clearly', async () => {
  const p256 = await createSigner(entry({ key_name: 'p256-key' }), 'solana', { env: env() });
  await assert.rejects(
    p256.ed25519!.sign(message),
    /signer 'transit-signer': Vault key 'p256-key' answered a signature that does not verify against 'pubkey' \(is it an ed25519 key/,
  );
  const mismatched = await createSigner(entry({ pubkey: OTHER_MOUNT_PUBKEY }), 'stellar', { env: env() });
  await assert.rejects(mismatched.ed25519!.sign(message), /does not verify against 'pubkey'/);
  const absent = await createSigner(entry({ key_name: 'absent' }), 'solana', { env: env() });
  await assert.rejects(
    absent.ed25519!.sign(message),
    /signer 'transit-signer': Vault Transit sign with 'absent' at 'transit': HTTP 400/,
  );
  await assert.rejects(
    createSigner(entry({ pubkey: 'c2hvcnQ=' }), 'solana', { env: env() }),
    /'pubkey' must be the Ed25519 public key in base64 \(32 bytes\); it has 5/,
  );
  await assert.rejects(
    createSigner(entry(), 'evm', { env: env() }),
    /signer 'transit-signer': a vault_transit signer signs with Ed25519 \(Solana, Stellar\), not for EVM/,
  );
});

test('a Vault that hangs or throttles at send time fails that sign within the deadline, naming the signer; then it signs again', async (t) => {
  const sim = await startVaultSim();
  t.after(() => sim.close());
  const pubkey = sim.addTransitKey('transit', 'relayer-key');
  const signer = await createSigner(
    {
      ...entry({ pubkey }),
      config: {
        ...(entry().config as object),
        address: sim.url,
        role_id: { type: 'plain', value: sim.roleId },
        secret_id: { type: 'plain', value: sim.secretId },
        pubkey,
      },
    } as SignerConfig,
    'solana',
    { env: env({ SIGNER_TIMEOUT_MS: '300' }) },
  );
  await signer.ed25519!.sign(message);
  sim.setFault('hang');
  await assert.rejects(signer.ed25519!.sign(message), {
    message:
      "signer 'transit-signer': Vault Transit sign with 'relayer-key' at 'transit': no answer within 300 ms (timed out)",
  });
  sim.setFault('throttle');
  await assert.rejects(
    signer.ed25519!.sign(message),
    /Vault Transit sign with 'relayer-key' at 'transit': HTTP 429: throttled/,
  );
  sim.setFault('ok');
  assert.ok(verify(null, message, publicKey(pubkey), await signer.ed25519!.sign(message)));
});

test('through the service: a Solana relayer on vault_transit signs a transaction as fee payer (sign-transaction)', async (t) => {
  const solana = await startSolanaSim();
  t.after(() => solana.close());
  const relayerAddress = (await createSigner(entry(), 'solana', { env: env() })).address;
  const s = await build(t, {
    env: { RELAYBOX_TRANSIT_SECRET_ID: vault.secretId },
    config: {
      networks: [{ type: 'solana', network: 'solana-sim', rpc_urls: [{ url: solana.url, weight: 100 }] }],
      signers: [
        {
          id: 'transit',
          type: 'vault_transit',
          config: {
            address: vault.url,
            role_id: { type: 'plain', value: vault.roleId },
            secret_id: { type: 'env', value: 'RELAYBOX_TRANSIT_SECRET_ID' },
            key_name: 'relayer-key',
            pubkey: PUBKEY,
          },
        } as SignerConfig,
      ],
      relayers: [
        {
          id: 'sol',
          name: 'Solana on Transit',
          network: 'solana-sim',
          signer_id: 'transit',
          policies: { fee_payment_strategy: 'relayer' },
        },
      ],
      notifications: [],
      plugins: [],
    },
  });
  const relayer = await s.request('GET', '/api/v1/relayers/sol');
  assert.equal(relayer.body.data.address, relayerAddress);
  // The relayer simulates what it signs and keeps its min_balance: a funded fee payer, the network's blockhash.
  solana.airdrop(relayerAddress, 1_000_000_000n);
  const unsigned = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(relayerAddress), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(solana.svm.latestBlockhash()), lastValidBlockHeight: 100n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('transit'),
        },
        m,
      ),
  );
  const res = await s.request('POST', '/api/v1/relayers/sol/sign-transaction', {
    body: { transaction: getBase64EncodedWireTransaction(compileTransaction(unsigned)) },
  });
  assert.equal(res.status, 200, res.text);
  const tx = getTransactionDecoder().decode(Buffer.from(res.body.data.transaction, 'base64'));
  const signature = tx.signatures[relayerAddress as Address]!;
  assert.ok(
    verify(null, new Uint8Array(tx.messageBytes), publicKey(PUBKEY), new Uint8Array(signature)),
    'Transit signed the message',
  );
  assert.ok(!s.rawLogs().includes(vault.secretId));
});
