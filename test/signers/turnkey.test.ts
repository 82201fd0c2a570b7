// The `turnkey` signer through Turnkey's official client (@turnkey/http + @turnkey/api-key-stamper) against a
// simulated Turnkey API (test/support/simulators/turnkey.ts) that verifies every request's X-Stamp. An EVM send
// through the service is confirmed on anvil.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { getBase58Encoder } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import { hashMessage, keccak256, recoverAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { SignerConfig } from '../../src/config/config.ts';
import { createSigner as adapter } from '../../src/signers/turnkey/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { newTurnkeyApiKey, startTurnkeySim, type TurnkeySim } from '../support/simulators/turnkey.ts';
import { build } from '../helper.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

const createSigner = fromEnv(adapter);

const turnkey = await startTurnkeySim();
after(() => turnkey.close());
// anvil's publicly known account #2, held by the simulated Turnkey: a development key, never real funds.
const EVM = turnkey.addPrivateKey('secp256k1', Buffer.from(ANVIL_KEYS[2].slice(2), 'hex'));
const EVM_ADDRESS = privateKeyToAccount(ANVIL_KEYS[2]).address;
const ED = turnkey.addPrivateKey('ed25519');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

function entry(
  sim: TurnkeySim,
  key: { privateKeyId: string; publicKey: string },
  config: Record<string, unknown> = {},
): SignerConfig {
  return {
    id: 'turnkey-signer',
    type: 'turnkey',
    config: {
      api_public_key: sim.apiKey.apiPublicKey,
      api_private_key: { type: 'plain', value: sim.apiKey.apiPrivateKey },
      organization_id: sim.organizationId,
      private_key_id: key.privateKeyId,
      public_key: key.publicKey,
      ...config,
    },
  } as SignerConfig;
}
const env = (sim: TurnkeySim, extra: Record<string, string> = {}) =>
  ({ TURNKEY_API_BASE_URL: sim.url, ...extra }) as NodeJS.ProcessEnv;
const digest = keccak256(toHex('relaybox turnkey'));

test('EVM: the address comes from public_key; Turnkey signs the digest and v is recovered', async () => {
  const signer = await createSigner(entry(turnkey, EVM), 'evm', { env: env(turnkey) });
  assert.equal(signer.address, EVM_ADDRESS);
  const signs = turnkey.stats.signs;
  const signature = await signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex'));
  assert.equal(turnkey.stats.signs, signs + 1, 'the simulated Turnkey signed');
  assert.equal(await recoverAddress({ hash: digest, signature: toHex(signature) }), EVM_ADDRESS);
});

test('EVM: a high-s answer is made low-s (EIP-2) and still recovers to the address', async (t) => {
  t.after(() => turnkey.setFault('ok'));
  const signer = await createSigner(entry(turnkey, EVM), 'evm', { env: env(turnkey) });
  turnkey.setFault('high-s');
  const signature = await signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex'));
  const s = BigInt(toHex(signature.subarray(32, 64)));
  assert.ok(s <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n, 'low s');
  assert.equal(await recoverAddress({ hash: digest, signature: toHex(signature) }), EVM_ADDRESS);
});

test('EVM: a public_key that is not the key Turnkey signs with: the signature is refused, never used', async () => {
  const other = turnkey.addPrivateKey('secp256k1');
  const signer = await createSigner(
    entry(turnkey, { privateKeyId: EVM.privateKeyId, publicKey: other.publicKey }),
    'evm',
    { env: env(turnkey) },
  );
  await assert.rejects(
    signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex')),
    /signer 'turnkey-signer': Turnkey key '.*': the signature does not recover to the signer's address .*: refused, never broadcast/,
  );
});

test('Solana and Stellar: the address is public_key in each spelling; Turnkey Ed25519 signatures verify', async () => {
  const message = new TextEncoder().encode('a transaction message');
  const raw = Buffer.from(ED.publicKey, 'hex');
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' });
  const solana = await createSigner(entry(turnkey, ED), 'solana', { env: env(turnkey) });
  const stellar = await createSigner(entry(turnkey, ED), 'stellar', { env: env(turnkey) });
  assert.deepEqual(Buffer.from(getBase58Encoder().encode(solana.address)), raw);
  assert.equal(stellar.address, StrKey.encodeEd25519PublicKey(raw));
  for (const s of [solana, stellar]) assert.ok(verify(null, message, key, await s.ed25519!.sign(message)));
});

test('an API key that is not registered is refused by the stamp check, naming the signer', async () => {
  const stranger = newTurnkeyApiKey();
  const refused = turnkey.stats.refusedStamps;
  const signer = await createSigner(
    entry(turnkey, EVM, {
      api_public_key: stranger.apiPublicKey,
      api_private_key: { type: 'plain', value: stranger.apiPrivateKey },
    }),
    'evm',
    { env: env(turnkey) },
  );
  await assert.rejects(signer.signEvmDigest!(Buffer.from(digest.slice(2), 'hex')), (err: Error) => {
    assert.equal(
      err.message,
      "signer 'turnkey-signer': Turnkey sign_raw_payload: the API key was refused (UNAUTHENTICATED: check api_public_key and api_private_key, and that the key is registered)",
    );
    assert.ok(!err.message.includes(stranger.apiPrivateKey));
    return true;
  });
  assert.equal(turnkey.stats.refusedStamps, refused + 1, 'the simulator checked the stamp and refused it');
});

test('an api_private_key that does not match api_public_key is refused when the signer is created, naming the signer and the mismatch', async () => {
  const stranger = newTurnkeyApiKey();
  const refused = turnkey.stats.refusedStamps;
  for (const networkType of ['evm', 'solana'] as const) {
    const key = networkType === 'evm' ? EVM : ED;
    await assert.rejects(
      createSigner(
        entry(turnkey, key, { api_private_key: { type: 'plain', value: stranger.apiPrivateKey } }),
        networkType,
        { env: env(turnkey) },
      ),
      (err: Error) => {
        assert.equal(
          err.message,
          "signer 'turnkey-signer': 'api_private_key' does not match 'api_public_key' (they are not the two halves of one Turnkey API key; give both from the same key)",
        );
        assert.ok(!err.message.includes(stranger.apiPrivateKey));
        return true;
      },
    );
  }
  await assert.rejects(
    createSigner(entry(turnkey, EVM, { api_private_key: { type: 'plain', value: 'not-hex' } }), 'evm', {
      env: env(turnkey),
    }),
    /^Error: signer 'turnkey-signer': 'api_private_key' must be the Turnkey API key's P-256 private key in hex/,
  );
  await assert.rejects(
    createSigner(entry(turnkey, EVM, { api_public_key: 'abcd' }), 'evm', { env: env(turnkey) }),
    /signer 'turnkey-signer': 'api_public_key' must be the Turnkey API key's compressed P-256 public key in hex/,
  );
  assert.equal(turnkey.stats.refusedStamps, refused, 'refused before any request');
});

test('the wrong organization, an unknown key, a key of the wrong curve and a bad public_key are clear errors', async () => {
  const evm = (config: Record<string, unknown>) =>
    createSigner(entry(turnkey, EVM, config), 'evm', { env: env(turnkey) });
  const sign = async (config: Record<string, unknown>) =>
    (await evm(config)).signEvmDigest!(Buffer.from(digest.slice(2), 'hex'));
  await assert.rejects(
    sign({ organization_id: 'another-org' }),
    /signer 'turnkey-signer': Turnkey sign_raw_payload: refused \(PERMISSION_DENIED: the API key may not use this organization or key; check organization_id and the policies\)$/,
  );
  await assert.rejects(
    sign({ private_key_id: 'absent' }),
    /: not found \(NOT_FOUND: check private_key_id and organization_id\)$/,
  );
  const edAsEvm = await createSigner(
    entry(turnkey, { privateKeyId: ED.privateKeyId, publicKey: EVM.publicKey }),
    'evm',
    { env: env(turnkey) },
  );
  await assert.rejects(
    edAsEvm.signEvmDigest!(Buffer.from(digest.slice(2), 'hex')),
    /refused as invalid \(INVALID_ARGUMENT: is private_key_id a key of the curve this network signs with\?\)$/,
  );
  await assert.rejects(
    createSigner(entry(turnkey, ED), 'evm', { env: env(turnkey) }),
    /signer 'turnkey-signer': 'public_key' must be the secp256k1 public key in hex for EVM/,
  );
  await assert.rejects(
    createSigner(entry(turnkey, EVM), 'solana', { env: env(turnkey) }),
    /'public_key' must be the Ed25519 public key in hex \(32 bytes\) for Solana and Stellar; it has 65/,
  );
});

test('a hanging, throttling, pending or unreachable Turnkey fails that sign in bounded time, naming the signer; then it signs again', async (t) => {
  const sim = await startTurnkeySim();
  t.after(() => sim.close());
  const key = sim.addPrivateKey('secp256k1');
  const signer = await createSigner(entry(sim, key), 'evm', { env: env(sim, { SIGNER_TIMEOUT_MS: '300' }) });
  const bytes = Buffer.from(digest.slice(2), 'hex');
  sim.setFault('hang');
  await assert.rejects(signer.signEvmDigest!(bytes), {
    message: "signer 'turnkey-signer': Turnkey sign_raw_payload: no answer within 300 ms (timed out)",
  });
  sim.setFault('throttle');
  await assert.rejects(
    signer.signEvmDigest!(bytes),
    /signer 'turnkey-signer': Turnkey sign_raw_payload: throttled by the service \(RESOURCE_EXHAUSTED\)$/,
  );
  sim.setFault('pending');
  await assert.rejects(signer.signEvmDigest!(bytes), /the activity is ACTIVITY_STATUS_CONSENSUS_NEEDED, not completed/);
  sim.setFault('ok');
  assert.equal((await signer.signEvmDigest!(bytes)).length, 65);
  const gone = await startTurnkeySim();
  await gone.close();
  const nowhere = await createSigner(entry(gone, gone.addPrivateKey('secp256k1')), 'evm', { env: env(gone) });
  await assert.rejects(
    nowhere.signEvmDigest!(bytes),
    /signer 'turnkey-signer': Turnkey sign_raw_payload: unreachable \(ECONNREFUSED\)/,
  );
});

test('through the service: an EVM relayer on turnkey has the key address and its send is confirmed on anvil', async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const s = await build(t, {
    // The service's Turnkey is the simulator, as an operator's TURNKEY_API_BASE_URL would name it.
    env: { RELAYBOX_TURNKEY_API_KEY: turnkey.apiKey.apiPrivateKey, TURNKEY_API_BASE_URL: turnkey.url },
    config: {
      networks: [anvil.network('anvil')],
      signers: [
        {
          id: 'turnkey-evm',
          type: 'turnkey',
          config: {
            api_public_key: turnkey.apiKey.apiPublicKey,
            api_private_key: { type: 'env', value: 'RELAYBOX_TURNKEY_API_KEY' },
            organization_id: turnkey.organizationId,
            private_key_id: EVM.privateKeyId,
            public_key: EVM.publicKey,
          },
        } as SignerConfig,
      ],
      relayers: [{ id: 'tk', name: 'turnkey', network: 'anvil', signer_id: 'turnkey-evm' }],
      notifications: [],
      plugins: [],
    },
  });
  const relayer = await s.request('GET', '/api/v1/relayers/tk');
  assert.equal(relayer.body.data.address.toLowerCase(), EVM_ADDRESS.toLowerCase());
  const to = '0x00000000000000000000000000000000000000a2';
  const sent = await s.request('POST', '/api/v1/relayers/tk/transactions', {
    body: { to, value: '1000', speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const txUrl = `/api/v1/relayers/tk/transactions/${sent.body.data.id}`;
  await waitFor(
    async () => (await s.request('GET', txUrl)).body.data,
    (tx) => ['mined', 'confirmed'].includes(tx.status),
    60_000,
    'mined',
  );
  assert.equal(BigInt(await anvil.rpc('eth_getBalance', [to, 'latest'])), 1000n);
  const signed = await s.request('POST', '/api/v1/relayers/tk/sign', { body: { message: 'hello' } });
  assert.equal(signed.status, 200, signed.text);
  assert.equal(
    await recoverAddress({ hash: hashMessage('hello'), signature: `0x${signed.body.data.sig}` }),
    EVM_ADDRESS,
  );
  assert.ok(!s.rawLogs().includes(turnkey.apiKey.apiPrivateKey), 'the API private key is never logged');
});
