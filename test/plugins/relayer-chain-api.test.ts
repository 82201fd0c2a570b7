// The reference's Relayer chain methods inside plugins: getRelayerStatus, rpc and signTransaction run the same domain
// operations as the HTTP routes (GET …/status, POST …/rpc, POST …/sign-transaction), on a SIMULATED Stellar network
// (test/support/stellar-rpc.ts: real XDR and signatures), and each is traced under emit_traces.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-base';
import { build } from '../helper.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';

let stellar: StellarSim;
before(async () => {
  stellar = await startStellarSim();
});
after(() => stellar.close());

const KEY = Keypair.random();

const PLUGIN = `export const settings = { emit_traces: true };
export async function handler({ api, params }) {
  const relayer = api.useRelayer(params.relayerId);
  const status = await relayer.getRelayerStatus();
  const ledger = await relayer.rpc({ jsonrpc: '2.0', id: 7, method: 'getLatestLedger' });
  const signed = await relayer.signTransaction({ unsigned_xdr: params.xdr });
  let paused = null;
  try { await api.useRelayer('xlm-paused').signTransaction({ unsigned_xdr: params.xdr }); } catch (e) { paused = { code: e.code, status: e.status, message: e.message }; }
  return { status, ledger, signed, paused };
}`;

function unsignedXdr(): string {
  const source = Keypair.random();
  return new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: stellar.passphrase,
  })
    .addOperation(Operation.payment({ destination: KEY.publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(30)
    .build()
    .toXDR();
}

test('getRelayerStatus, rpc and signTransaction answer as the HTTP routes do, and are traced', async (t) => {
  const s = await build(t, {
    plugins: { 'chain.ts': PLUGIN },
    config: {
      networks: [
        {
          type: 'stellar',
          network: 'stellar-sim',
          passphrase: stellar.passphrase,
          rpc_urls: [{ url: stellar.url, weight: 100 }],
        },
      ],
      signers: [{ id: 'stellar-key', type: 'local', private_key: KEY.secret() }],
      relayers: [
        { id: 'xlm', name: 'Stellar', network: 'stellar-sim', signer_id: 'stellar-key' },
        { id: 'xlm-paused', name: 'Stellar, paused', network: 'stellar-sim', signer_id: 'stellar-key', paused: true },
      ],
      notifications: [],
    } as never,
  });
  const xdr = unsignedXdr();
  const res = await s.request('POST', '/api/v1/plugins/chain/call', { body: { params: { relayerId: 'xlm', xdr } } });
  assert.equal(res.status, 200, res.text);
  const d = res.body.data;

  const httpStatus = await s.request('GET', '/api/v1/relayers/xlm/status');
  assert.deepEqual(d.status, httpStatus.body.data, 'the reference status shape, from the same domain operation');
  assert.equal(d.status.network_type, 'stellar');

  const httpLedger = await s.request('POST', '/api/v1/relayers/xlm/rpc', {
    body: { jsonrpc: '2.0', id: 7, method: 'getLatestLedger' },
  });
  assert.equal(d.ledger.jsonrpc, '2.0');
  assert.equal(d.ledger.id, 7);
  assert.deepEqual(
    Object.keys(d.ledger.result).sort(),
    Object.keys(httpLedger.body.result ?? httpLedger.body.data?.result ?? {}).sort(),
  );

  const signed = TransactionBuilder.fromXDR(d.signed.signedXdr, stellar.passphrase);
  assert.equal(signed.signatures.length, 1);
  assert.ok(KEY.verify(signed.hash(), signed.signatures[0]!.signature()), "the relayer's key signed the network hash");
  assert.equal(d.signed.signature, signed.signatures[0]!.signature().toString('base64'));

  assert.deepEqual(d.paused, { code: d.paused.code, status: 403, message: 'Relayer paused' });
  assert.deepEqual(
    res.body.metadata.traces.map((x: { method: string }) => x.method),
    ['getRelayerStatus', 'rpc', 'signTransaction', 'signTransaction'],
  );
  assert.deepEqual(res.body.metadata.traces[2].payload, { unsigned_xdr: xdr });
  assert.ok(!res.text.includes(KEY.secret()));
});
