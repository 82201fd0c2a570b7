// The pkcs11 signer against a real software HSM (SoftHSM 2) and the real service: an EVM relayer whose key is in the
// token sends to `confirmed` on a real anvil and signs messages and typed data; Solana and Stellar relayers sign with
// its Ed25519 key; a wrong PIN, a missing key, a key of the wrong curve and a missing module stop the start with one
// line naming the signer. Skipped, with the reason, where SoftHSM is not installed, except in CI (.ci/run installs it).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import {
  hashDomain,
  hashStruct,
  hexToBytes,
  keccak256,
  recoverAddress,
  recoverMessageAddress,
  recoverTypedDataAddress,
  toHex,
  type Hex,
} from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressDecoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { Account, Asset, Keypair, Operation, StrKey, TransactionBuilder } from '@stellar/stellar-base';
import pkcs11js from 'pkcs11js';
import { build, API_KEY } from '../helper.ts';
import { loadConfig, type ConfigFile, type SignerConfigOf } from '../../src/config/config.ts';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { ANVIL_KEYS, startAnvil, type TestAnvil } from '../support/anvil.ts';
import { startSolanaSim, type SolanaSim } from '../support/solana-rpc.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import { createToken, findSoftHsm, type SoftHsmToken } from '../support/pkcs11-softhsm.ts';
import { CKK_EC, CKK_EC_EDWARDS, curveOf, publicPoint } from '../../src/signers/pkcs11/key-info.ts';
import { createSigner as adapter } from '../../src/signers/pkcs11/signer.ts';
import { fromEnv } from '../support/signer-context.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

const createSigner = fromEnv(adapter);

const found = findSoftHsm();
const skip = 'missing' in found && !process.env.CI ? found.missing : false;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

let token: SoftHsmToken;
let anvil: TestAnvil;
if (!skip) {
  // In CI a missing SoftHSM fails here, loudly, rather than skipping the file.
  if ('missing' in found) throw new Error(`CI: ${found.missing}`);
  token = createToken(found.modulePath, [
    { label: 'evm1', id: '01', type: 'EC:secp256k1' },
    { label: 'ed1', id: '02', type: 'EC:edwards25519' },
    { label: 'p256', id: '03', type: 'EC:prime256v1' },
    { label: 'mix-evm', id: '0a', type: 'EC:secp256k1' },
    { label: 'other-evm', id: '0b', type: 'EC:secp256k1' },
    { label: 'mix-ed', id: '0c', type: 'EC:edwards25519' },
    { label: 'other-ed', id: '0d', type: 'EC:edwards25519' },
  ]);
  token.crossPublicKey('0a', '0b');
  token.crossPublicKey('0c', '0d');
  anvil = await startAnvil();
  after(async () => {
    await anvil.stop();
    token.remove();
  });
}

/** The key's public point out of CKA_EC_POINT's DER OCTET STRING (as pkcs11-tool printed it). */
const point = (label: string) => token.ecPoints[label]!.subarray(2);

function pkcs11Signer(id: string, config: Record<string, unknown> = {}) {
  return {
    id,
    type: 'pkcs11' as const,
    config: {
      module_path: token.modulePath,
      token_label: token.tokenLabel,
      pin: { type: 'env', value: 'HSM_PIN' },
      key_label: 'evm1',
      ...config,
    },
  };
}

function evmConfig(signer: ReturnType<typeof pkcs11Signer>): Partial<ConfigFile> {
  return {
    networks: [anvil.network('anvil')],
    signers: [signer] as ConfigFile['signers'],
    relayers: [{ id: 'hsm', name: 'HSM relayer', network: 'anvil', signer_id: signer.id }],
    notifications: [],
    plugins: [],
  };
}

test('EVM: a secp256k1 key in the token sends to confirmed with from = its address; sign and sign-typed-data recover to it', {
  skip,
}, async (t) => {
  const expected = publicKeyToAddress(`0x${point('evm1').toString('hex')}`);
  await anvil.waitMined(await anvil.sendFrom(ANVIL_KEYS[0], { to: expected, value: 10n ** 18n }));
  const s = await build(t, { config: evmConfig(pkcs11Signer('hsm-key')), env: { HSM_PIN: token.pin } });
  const relayer = await s.request('GET', '/api/v1/relayers/hsm');
  assert.equal(relayer.body.data.address, expected, "the relayer's address is the token key's");

  const sent = await s.request('POST', '/api/v1/relayers/hsm/transactions', {
    body: { to: TO, value: '1000', speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const read = async () => (await s.request('GET', `/api/v1/relayers/hsm/transactions/${sent.body.data.id}`)).body.data;
  await waitFor(read, (tx) => tx.status === 'mined' || tx.status === 'confirmed', 30_000, 'mined');
  await anvil.mine(1);
  const done = await waitFor(read, (tx) => tx.status === 'confirmed', 30_000, 'confirmed');
  const onChain = await anvil.rpc<{ from: Hex }>('eth_getTransactionByHash', [done.hash]);
  assert.equal(onChain.from.toLowerCase(), expected.toLowerCase(), 'the chain says the token key sent it');

  const message = 'signed inside the HSM';
  const signed = await s.request('POST', '/api/v1/relayers/hsm/sign', { body: { message } });
  assert.equal(signed.status, 200, signed.text);
  assert.equal(await recoverMessageAddress({ message, signature: `0x${signed.body.data.sig}` }), expected);

  const typed = {
    domain: { name: 'Relaybox', version: '1', chainId: BigInt(anvil.chainId), verifyingContract: TO as Hex },
    types: {
      Mail: [
        { name: 'to', type: 'address' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Mail',
    message: { to: TO as Hex, contents: 'hello' },
  } as const;
  const domainSeparator = hashDomain({
    domain: typed.domain,
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ...typed.types,
    },
  });
  const body = {
    domain_separator: domainSeparator,
    hash_struct_message: hashStruct({ data: typed.message, primaryType: 'Mail', types: typed.types }),
  };
  const typedSig = await s.request('POST', '/api/v1/relayers/hsm/sign-typed-data', { body });
  assert.equal(typedSig.status, 200, typedSig.text);
  assert.equal(await recoverTypedDataAddress({ ...typed, signature: `0x${typedSig.body.data.sig}` }), expected);
  assert.ok(!s.rawLogs().includes(token.pin), 'the PIN is never logged');
});

test('EVM: concurrent signatures share the one session in turn; a session the token closed is opened and logged in again', {
  skip,
}, async (t) => {
  const s = await build(t, { config: evmConfig(pkcs11Signer('hsm-key')), env: { HSM_PIN: token.pin } });
  const expected = publicKeyToAddress(`0x${point('evm1').toString('hex')}`);
  // A PKCS#11 session signs one thing at a time (a second C_SignInit while one is active is CKR_OPERATION_ACTIVE):
  // sixteen digests asked for in the same tick, through the adapter itself, all come back signed.
  const signer = await createSigner(pkcs11Signer('hsm-key') as SignerConfigOf<'pkcs11'>, 'evm', {
    env: { HSM_PIN: token.pin },
  });
  const digests = Array.from({ length: 16 }, (_, i) => keccak256(toHex(`concurrent ${i}`)));
  const signatures = await Promise.all(digests.map((d) => signer.signEvmDigest!(hexToBytes(d))));
  for (const [i, signature] of signatures.entries())
    assert.equal(await recoverAddress({ hash: digests[i]!, signature: toHex(signature) }), expected);
  // The same SoftHSM library in this process, through pkcs11js itself: every session on the token is closed (and
  // with the last one, the login), as a module restart or a token removed and put back would do.
  const lib = new pkcs11js.PKCS11();
  lib.load(token.modulePath);
  try {
    lib.C_Initialize();
  } catch (err) {
    assert.match((err as Error).message, /CKR_CRYPTOKI_ALREADY_INITIALIZED/);
  }
  const slot = lib.C_GetSlotList(true).find((h) => Number(h.readBigUInt64LE(0)) === token.slot)!;
  lib.C_CloseAllSessions(slot);
  const again = await s.request('POST', '/api/v1/relayers/hsm/sign', { body: { message: 'after' } });
  assert.equal(again.status, 200, again.text);
  assert.equal(await recoverMessageAddress({ message: 'after', signature: `0x${again.body.data.sig}` }), expected);
});

test('Solana and Stellar: an Ed25519 key in the token (by label, and by slot and id) signs; the signatures verify against it', {
  skip,
}, async (t) => {
  const [solana, stellar]: [SolanaSim, StellarSim] = await Promise.all([startSolanaSim(), startStellarSim()]);
  t.after(() => Promise.all([solana.close(), stellar.close()]));
  const publicKey = point('ed1');
  const spki = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  const solanaAddress = getAddressDecoder().decode(publicKey);
  const stellarAddress = StrKey.encodeEd25519PublicKey(publicKey);
  const s = await build(t, {
    env: { HSM_PIN: token.pin },
    config: {
      networks: [
        { type: 'solana', network: 'solana-sim', rpc_urls: [{ url: solana.url, weight: 100 }] },
        {
          type: 'stellar',
          network: 'stellar-sim',
          passphrase: stellar.passphrase,
          rpc_urls: [{ url: stellar.url, weight: 100 }],
        },
      ],
      signers: [
        pkcs11Signer('ed-by-label', { key_label: 'ed1' }),
        pkcs11Signer('ed-by-id', { token_label: undefined, slot: token.slot, key_label: undefined, key_id: '02' }),
      ] as ConfigFile['signers'],
      relayers: [
        {
          id: 'sol',
          name: 'Solana',
          network: 'solana-sim',
          signer_id: 'ed-by-label',
          policies: { fee_payment_strategy: 'relayer' },
        },
        { id: 'xlm', name: 'Stellar', network: 'stellar-sim', signer_id: 'ed-by-id' },
      ],
      notifications: [],
      plugins: [],
    },
  });
  assert.equal((await s.request('GET', '/api/v1/relayers/sol')).body.data.address, solanaAddress);
  assert.equal((await s.request('GET', '/api/v1/relayers/xlm')).body.data.address, stellarAddress);

  // The relayer simulates what it signs and keeps its min_balance: a funded fee payer, the network's blockhash.
  solana.airdrop(solanaAddress, 1_000_000_000n);
  const sol = await s.request('POST', '/api/v1/relayers/sol/sign-transaction', {
    body: { transaction: solanaTransaction(solanaAddress, solana.svm.latestBlockhash()) },
  });
  assert.equal(sol.status, 200, sol.text);
  const tx = getTransactionDecoder().decode(Buffer.from(sol.body.data.transaction, 'base64'));
  const solSignature = tx.signatures[solanaAddress as Address]!;
  assert.ok(
    verify(null, new Uint8Array(tx.messageBytes), spki, new Uint8Array(solSignature)),
    'the Solana message is signed by the token key',
  );

  const unsigned = new TransactionBuilder(new Account(Keypair.random().publicKey(), '41'), {
    fee: '100',
    networkPassphrase: stellar.passphrase,
  })
    .addOperation(Operation.payment({ destination: stellarAddress, asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build();
  const xlm = await s.request('POST', '/api/v1/relayers/xlm/sign-transaction', {
    body: { unsigned_xdr: unsigned.toXDR() },
  });
  assert.equal(xlm.status, 200, xlm.text);
  const signature = Buffer.from(xlm.body.data.signature, 'base64');
  assert.ok(verify(null, unsigned.hash(), spki, signature), 'the Stellar network hash is signed by the token key');
  assert.ok(!s.rawLogs().includes(token.pin));
});

test('key-info: secp256k1 and Ed25519 are known by OID or by curve name, the point bare or in its OCTET STRING; other curves are named', () => {
  const ed = Buffer.alloc(32, 7);
  const k1 = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 9)]);
  assert.deepEqual(curveOf(CKK_EC, Buffer.from('06052b8104000a', 'hex')), { curve: 'secp256k1' });
  assert.deepEqual(curveOf(CKK_EC_EDWARDS, Buffer.from('06032b6570', 'hex')), { curve: 'ed25519' });
  assert.deepEqual(curveOf(CKK_EC_EDWARDS, Buffer.concat([Buffer.from([0x13, 12]), Buffer.from('edwards25519')])), {
    curve: 'ed25519',
  });
  assert.deepEqual(curveOf(CKK_EC_EDWARDS, Buffer.from('06032b6571', 'hex')), { other: 'an Edwards key on Ed448' });
  assert.deepEqual(curveOf(CKK_EC, Buffer.from('06052b81040022', 'hex')), { other: 'an EC key on P-384 (secp384r1)' });
  assert.deepEqual(curveOf(0, undefined), { other: 'a key of type 0x0 (not an EC key)' });
  assert.deepEqual(publicPoint('ed25519', Buffer.concat([Buffer.from([4, 32]), ed])), ed);
  assert.deepEqual(publicPoint('ed25519', ed), ed);
  assert.deepEqual(publicPoint('secp256k1', Buffer.concat([Buffer.from([4, 65]), k1])), k1);
  assert.deepEqual(publicPoint('secp256k1', k1), k1);
  assert.throws(() => publicPoint('secp256k1', ed), /CKA_EC_POINT \(32 bytes\) is not a secp256k1 point/);
});

/** A Solana transaction paying its fee from `feePayer`, with one memo instruction (base64 wire, unsigned). */
function solanaTransaction(feePayer: string, hash: string): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(hash), lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('relaybox'),
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

/** Starts the real app with this config and expects the start to be refused; answers the error and every log line. */
async function refusedStart(
  config: Partial<ConfigFile>,
  env: Record<string, string>,
): Promise<{ error: Error; logs: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-pkcs11-'));
  try {
    const base = { API_KEY, DATA_DIR: path.join(dir, 'data'), PLUGINS_DIR: dir, ...env };
    const configPath = path.join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify({ ...loadConfig({ ...base, CONFIG_PATH: '' }).file, ...config }));
    const loaded = loadConfig({ ...base, CONFIG_PATH: configPath });
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const error = await createApp(loaded, createLogger('debug', sink)).then(
      async (app) => {
        await app.close();
        return new Error('the start was not refused');
      },
      (err: Error) => err,
    );
    return { error, logs: lines.join('') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a wrong PIN, a missing key, a key of the wrong curve and a missing module each stop the start with one line naming the signer', {
  skip,
}, async () => {
  const cases: Array<[string, ReturnType<typeof pkcs11Signer>, Record<string, string>, RegExp]> = [
    [
      'wrong PIN',
      pkcs11Signer('bad-pin'),
      { HSM_PIN: `${token.pin}0` },
      /signer 'bad-pin': token 'relaybox-test': login refused: the PIN is wrong/,
    ],
    [
      'missing key',
      pkcs11Signer('no-key', { key_label: 'absent' }),
      { HSM_PIN: token.pin },
      /signer 'no-key': no private key with label 'absent' on token 'relaybox-test'/,
    ],
    [
      'P-256 key',
      pkcs11Signer('p256', { key_label: 'p256' }),
      { HSM_PIN: token.pin },
      /signer 'p256': the key with label 'p256' is an EC key on P-256 \(prime256v1\); an EVM signer needs a secp256k1 key/,
    ],
    [
      'Ed25519 key',
      pkcs11Signer('ed-for-evm', { key_label: 'ed1' }),
      { HSM_PIN: token.pin },
      /signer 'ed-for-evm': the key with label 'ed1' is an Ed25519 key; an EVM signer needs a secp256k1 key/,
    ],
    [
      'missing module',
      pkcs11Signer('no-module', { module_path: '/nonexistent/libpkcs11.so' }),
      { HSM_PIN: token.pin },
      /signer 'no-module': PKCS#11 module \/nonexistent\/libpkcs11.so does not exist/,
    ],
    [
      'no token',
      pkcs11Signer('no-token', { token_label: 'absent' }),
      { HSM_PIN: token.pin },
      /signer 'no-token': no token labelled 'absent' in .*\(tokens: .*'relaybox-test'/,
    ],
  ];
  for (const [what, signer, env, expected] of cases) {
    const { error, logs } = await refusedStart(evmConfig(signer), env);
    assert.match(error.message, expected, what);
    assert.ok(!error.message.includes('\n'), `${what}: one line, no stack: ${error.message}`);
    assert.ok(!error.message.includes(token.pin) && !logs.includes(token.pin), `${what}: the PIN is never shown`);
  }
});

test('a private key and a public key object of one id that are two different keys are refused at creation, naming the signer', {
  skip,
}, async () => {
  const env = { HSM_PIN: token.pin } as NodeJS.ProcessEnv;
  const mixed = (id: string) =>
    ({
      ...pkcs11Signer(`mixed-${id}`),
      config: {
        module_path: token.modulePath,
        token_label: token.tokenLabel,
        pin: { type: 'plain', value: token.pin },
        key_id: id,
      },
    }) as never;
  await assert.rejects(createSigner(mixed('0a'), 'evm', { env }), {
    message:
      "signer 'mixed-0a': the private key with id 0a does not match the public key with id 0a (they are two different keys; give the two halves of one key pair the same label and id)",
  });
  await assert.rejects(createSigner(mixed('0c'), 'solana', { env }), {
    message:
      "signer 'mixed-0c': the private key with id 0c does not match the public key with id 0c (they are two different keys; give the two halves of one key pair the same label and id)",
  });
  assert.ok((await createSigner(mixed('01'), 'evm', { env })).address, 'a true pair still opens');
});
