// The reference's own client, @openzeppelin/relayer-sdk, against Relaybox: status, balance, sign, sign-typed-data,
// sign-transaction, rpc, health, metrics and plugin calls with a route. EVM on a real anvil; Solana and Stellar on
// SIMULATED networks (test/support/solana-rpc.ts, test/support/stellar-rpc.ts).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Configuration, HealthApi, MetricsApi, PluginsApi, RelayersApi } from '@openzeppelin/relayer-sdk';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-base';
import { concatHex, keccak256, recoverAddress, recoverMessageAddress, type Hex } from 'viem';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { startAnvil, type TestAnvil } from '../support/anvil.ts';
import { startSolanaSim, type SolanaSim } from '../support/solana-rpc.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import { EVM_ADDRESS, EVM_KEY } from '../transactions/fixtures.ts';

let anvil: TestAnvil;
let solana: SolanaSim;
let stellar: StellarSim;
before(async () => {
  [anvil, solana, stellar] = await Promise.all([startAnvil(), startSolanaSim(), startStellarSim()]);
});
after(() => Promise.all([anvil.stop(), solana.close(), stellar.close()]));

const SOLANA_SEED = randomBytes(32).toString('hex');
const SOLANA_RELAYER = resolveSigner({ id: 'x', type: 'local', private_key: SOLANA_SEED }, 'solana', {}).address;
const STELLAR_KEY = Keypair.random();
const PLUGIN = `export const settings = { allow_get_invocation: true };
export async function handler(c) { return { route: c.route, method: c.method, params: c.params }; }`;

async function start(t: Parameters<typeof build>[0]): Promise<{ s: TestServer; config: Configuration }> {
  const s = await build(t, {
    env: { METRICS_PORT: '0' },
    plugins: { 'echo.ts': PLUGIN },
    config: {
      networks: [
        anvil.network('anvil'),
        { type: 'solana', network: 'solana-sim', rpc_urls: [{ url: solana.url, weight: 100 }] },
        {
          type: 'stellar',
          network: 'stellar-sim',
          passphrase: stellar.passphrase,
          rpc_urls: [{ url: stellar.url, weight: 100 }],
        },
      ],
      signers: [
        { id: 'evm-key', type: 'local', private_key: EVM_KEY },
        { id: 'solana-key', type: 'local', private_key: SOLANA_SEED },
        { id: 'stellar-key', type: 'local', private_key: STELLAR_KEY.secret() },
      ],
      relayers: [
        { id: 'evm', name: 'EVM', network: 'anvil', signer_id: 'evm-key' },
        // It pays the fees itself (without the field, users would pay in tokens: the reference's default).
        {
          id: 'sol',
          name: 'Solana',
          network: 'solana-sim',
          signer_id: 'solana-key',
          policies: { fee_payment_strategy: 'relayer' },
        },
        { id: 'xlm', name: 'Stellar', network: 'stellar-sim', signer_id: 'stellar-key' },
      ],
      notifications: [],
    },
  });
  return { s, config: new Configuration({ basePath: s.url, accessToken: API_KEY }) };
}

test('the client reads status and balance of each network type in the reference shapes', async (t) => {
  stellar.fund(STELLAR_KEY.publicKey(), 30_000_000n);
  solana.airdrop(SOLANA_RELAYER, 2_000_000n);
  const { config } = await start(t);
  const relayers = new RelayersApi(config);
  const evm = (await relayers.getRelayerStatus('evm')).data;
  assert.equal(evm.success, true);
  // The reference's fields, and ours after them (disabled_reason, rpc, balance_watch), which its client passes through.
  assert.deepEqual(Object.keys(evm.data!).slice(0, 7).sort(), [
    'balance',
    'last_confirmed_transaction_timestamp',
    'network_type',
    'nonce',
    'paused',
    'pending_transactions_count',
    'system_disabled',
  ]);
  assert.deepEqual(Object.keys(evm.data!).slice(7), ['disabled_reason', 'rpc', 'balance_watch']);
  assert.equal(
    (evm.data as { balance: string }).balance,
    BigInt(await anvil.rpc<string>('eth_getBalance', [EVM_ADDRESS, 'latest'])).toString(),
  );
  const sol = (await relayers.getRelayerStatus('sol')).data.data as { network_type: string; balance: string };
  assert.deepEqual([sol.network_type, sol.balance], ['solana', String(solana.balance(SOLANA_RELAYER))]);
  const xlm = (await relayers.getRelayerStatus('xlm')).data.data as { network_type: string; sequence_number: string };
  assert.deepEqual(
    [xlm.network_type, xlm.sequence_number],
    ['stellar', String(stellar.account(STELLAR_KEY.publicKey())!.seq)],
  );
  assert.deepEqual((await relayers.getRelayerBalance('xlm')).data.data, { balance: 30_000_000, unit: 'stroop' });
  assert.equal((await relayers.getRelayerBalance('sol')).data.data?.unit, 'lamport');
  assert.equal((await relayers.getRelayerBalance('evm')).data.data?.unit, 'wei');
});

test('the client signs EIP-191 and EIP-712 through the EVM relayer', async (t) => {
  const { config } = await start(t);
  const relayers = new RelayersApi(config);
  const signed = (await relayers.sign('evm', { message: 'hello from the sdk' })).data.data as { sig: string };
  assert.equal(
    await recoverMessageAddress({ message: 'hello from the sdk', signature: `0x${signed.sig}` }),
    EVM_ADDRESS,
  );
  const domain = keccak256('0xaa');
  const struct = keccak256('0xbb');
  const typed = (await relayers.signTypedData('evm', { domain_separator: domain, hash_struct_message: struct })).data
    .data as { sig: string };
  assert.equal(
    await recoverAddress({
      hash: keccak256(concatHex(['0x1901', domain, struct])),
      signature: `0x${typed.sig}` as Hex,
    }),
    EVM_ADDRESS,
  );
  await assert.rejects(
    relayers.signTransaction('evm', [1, 2, 3]),
    (err: { response: { status: number; data: { error: string } } }) => {
      assert.equal(err.response.status, 400);
      assert.equal(err.response.data.error, 'Transaction signing not supported for EVM');
      return true;
    },
  );
});

test('the client signs Stellar and Solana transactions with sign-transaction', async (t) => {
  const { config } = await start(t);
  const relayers = new RelayersApi(config);
  const source = Keypair.random();
  const unsigned = new TransactionBuilder(new Account(source.publicKey(), '7'), {
    fee: '100',
    networkPassphrase: stellar.passphrase,
  })
    .addOperation(Operation.payment({ destination: STELLAR_KEY.publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build();
  const xlm = (await relayers.signTransaction('xlm', { unsigned_xdr: unsigned.toXDR() })).data.data as {
    signedXdr: string;
    signature: string;
  };
  const signed = TransactionBuilder.fromXDR(xlm.signedXdr, stellar.passphrase);
  assert.ok(STELLAR_KEY.verify(signed.hash(), Buffer.from(xlm.signature, 'base64')));

  // The relayer simulates what it signs and keeps its min_balance (0.01 SOL by default): a funded relayer, a live blockhash.
  solana.airdrop(SOLANA_RELAYER, 1_000_000_000n);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(SOLANA_RELAYER), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(solana.svm.latestBlockhash()), lastValidBlockHeight: 100n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('sdk'),
        },
        m,
      ),
  );
  const sol = (
    await relayers.signTransaction('sol', { transaction: getBase64EncodedWireTransaction(compileTransaction(message)) })
  ).data.data as { transaction: string; signature: string };
  assert.match(sol.signature, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  assert.ok(sol.transaction.length > 0);
});

test('the client calls rpc and gets raw JSON-RPC back, node errors included', async (t) => {
  const { config } = await start(t);
  const relayers = new RelayersApi(config);
  const block = (await relayers.rpc('evm', { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } as never))
    .data as { result: string; id: number };
  assert.match(block.result, /^0x[0-9a-f]+$/);
  assert.equal(block.id, 1);
  const features = (
    await relayers.rpc('sol', { jsonrpc: '2.0', id: 2, method: 'getFeaturesEnabled', params: {} } as never)
  ).data as { result: unknown };
  assert.deepEqual(features.result, { method: 'getFeaturesEnabled', features: ['gasless'] });
  const refused = (
    await relayers.rpc('evm', { jsonrpc: '2.0', id: 3, method: 'eth_sendRawTransaction', params: ['0x00'] } as never)
  ).data as { error: { code: number } };
  assert.equal(refused.error.code, -32601);
});

test('the client reads health and metrics, and calls a plugin with a route by POST and GET', async (t) => {
  const { s, config } = await start(t);
  assert.equal((await new HealthApi(config).health()).data, 'OK');
  // The reference serves its metrics API without a key on its metrics port; Relaybox does on METRICS_PORT.
  const metricsBase = `http://127.0.0.1:${(s.app.metricsServer!.address() as AddressInfo).port}`;
  const metrics = new MetricsApi(new Configuration({ basePath: metricsBase }));
  const names = (await metrics.listMetrics()).data;
  assert.ok(Array.isArray(names) && names.includes('relaybox_http_requests_total'));
  assert.match(
    String((await metrics.metricDetail('relaybox_http_requests_total')).data),
    /^# TYPE relaybox_http_requests_total counter$/m,
  );
  assert.match(String((await metrics.scrapeMetrics()).data), /^# HELP /m);
  // On the API port the same calls need the key, sent as a header of every request.
  const keyed = new MetricsApi(
    new Configuration({ basePath: s.url, baseOptions: { headers: { Authorization: `Bearer ${API_KEY}` } } }),
  );
  assert.ok((await keyed.listMetrics()).data.includes('relaybox_http_requests_total'));

  const plugins = new PluginsApi(config);
  const posted = (await plugins.callPlugin('echo', { params: { n: 1 } }, '/verify')).data;
  assert.deepEqual(posted.data, { route: '/verify', method: 'POST', params: { n: 1 } });
  const got = (await plugins.callPluginGet('echo', '/status')).data;
  assert.deepEqual(got.data, { route: '/status', method: 'GET', params: {} });
});
