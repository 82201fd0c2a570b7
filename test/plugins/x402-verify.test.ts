// The x402 facilitator's /verify flow, unchanged in the sandbox, against our Stellar relayer on a SIMULATED Stellar
// network (test/support/stellar-rpc.ts). It parses the payment with the Stellar SDK inside the sandbox, checks the
// payer's signed auth entry, asks our relayer for itself (getRelayer) and the network (rpc getLatestLedger,
// simulateTransaction). The simulator runs no Soroban VM, so the flow ends exactly at the simulation step: that
// is the external service a full verify/settle needs (a Stellar RPC backed by stellar-core).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Account,
  Address,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  authorizeEntry,
  nativeToScVal,
  xdr,
} from '@stellar/stellar-base';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { build } from '../helper.ts';
import { eventually } from '../fixtures/plugin-fixtures.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';

const ASSET = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
let stellar: StellarSim;
before(async () => {
  stellar = await startStellarSim({ passphrase: Networks.TESTNET });
});
after(() => stellar.close());

async function latestLedger(): Promise<number> {
  const res = await fetch(stellar.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' }),
  });
  return ((await res.json()) as { result: { sequence: number } }).result.sequence;
}

/** A Soroban `transfer(from, to, amount)` on the asset contract, with the payer's signed auth entry; no envelope signature. */
async function payment(payer: Keypair, payTo: string, amount: bigint): Promise<string> {
  const args = [
    nativeToScVal(payer.publicKey(), { type: 'address' }),
    nativeToScVal(payTo, { type: 'address' }),
    nativeToScVal(amount, { type: 'i128' }),
  ];
  const invoke = new xdr.InvokeContractArgs({
    contractAddress: Address.fromString(ASSET).toScAddress(),
    functionName: 'transfer',
    args,
  });
  const entry = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: Address.fromString(payer.publicKey()).toScAddress(),
        nonce: xdr.Int64.fromString('7'),
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid(),
      }),
    ),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(invoke),
      subInvocations: [],
    }),
  });
  const signed = await authorizeEntry(entry, payer, (await latestLedger()) + 2, Networks.TESTNET);
  const source = Keypair.random();
  return new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: '100000',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.invokeContractFunction({ contract: ASSET, function: 'transfer', args, auth: [signed] }))
    .setTimeout(60)
    .build()
    .toXDR();
}

const request = (transaction: string, payTo: string) => {
  const requirements = {
    scheme: 'exact',
    network: 'stellar:testnet',
    amount: '100',
    payTo,
    asset: ASSET,
    maxTimeoutSeconds: 60,
    extra: { areFeesSponsored: true },
  };
  return {
    paymentPayload: { x402Version: 2, accepted: requirements, payload: { transaction } },
    paymentRequirements: requirements,
  };
};

test('x402 /verify runs unchanged through our relayer API up to the Soroban simulation the simulator cannot run', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-x402-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(
    path.join(dir, 'x402.ts'),
    `export { handler } from '@openzeppelin/relayer-plugin-x402-facilitator';\n`,
  );
  const relayerKey = Keypair.random();
  const s = await build(t, {
    runtime: true,
    env: { PLUGINS_DIR: dir },
    config: {
      networks: [
        {
          type: 'stellar',
          network: 'testnet',
          passphrase: Networks.TESTNET,
          rpc_urls: [{ url: stellar.url, weight: 100 }],
        },
      ],
      signers: [{ id: 'xlm-key', type: 'local', private_key: relayerKey.secret() }],
      relayers: [{ id: 'xlm', name: 'Stellar', network: 'testnet', signer_id: 'xlm-key' }],
      notifications: [],
      plugins: [
        {
          id: 'x402',
          raw_response: true,
          emit_traces: true,
          config: { networks: [{ network: 'stellar:testnet', type: 'stellar', relayer_id: 'xlm', assets: [ASSET] }] },
        },
      ],
    } as never,
  });
  await eventually(async () => (await s.request('GET', '/api/v1/ready', { auth: false })).status === 200, 600, 100);
  const payer = Keypair.random();
  const payTo = Keypair.random().publicKey();
  const tx = await payment(payer, payTo, 100n);

  const wrong = await s.request('POST', '/api/v1/plugins/x402/call/verify', {
    body: { params: request(tx, Keypair.random().publicKey()) },
  });
  assert.equal(wrong.status, 200, wrong.text);
  assert.deepEqual(wrong.body, {
    isValid: false,
    invalidReason: 'invalid_exact_stellar_payload_wrong_recipient',
    payer: payer.publicKey(),
  });

  const res = await s.request('POST', '/api/v1/plugins/x402/call/verify', { body: { params: request(tx, payTo) } });
  assert.equal(res.status, 200, res.text);
  // Every check before the simulation passed (amount, recipient, the payer's auth signature, expirations):
  // the simulated network answers simulateTransaction with its "no Soroban VM" error.
  assert.deepEqual(res.body, {
    isValid: false,
    invalidReason: 'invalid_exact_stellar_payload_simulation_failed',
    payer: payer.publicKey(),
  });
});
