// The app and its chains: the example config starts a devnet and prices from it; real RPC URLs start nothing; chain ids are checked at start.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';
import { EVM_KEY, TO, txPath } from '../transactions/fixtures.ts';
import { startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

const answers = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
  }).then(
    () => true,
    () => false,
  );

const relayerOn = (network: string) => ({
  signers: [{ id: 'key', type: 'local' as const, development: true, private_key: EVM_KEY }],
  relayers: [{ id: 'r', name: 'relayer', network, signer_id: 'key' }],
});

test('the example config starts its devnet, prices speed sends from it, and close() stops it', async (t) => {
  const s = await build(t, { devnet: true });
  const devnet = s.app.chains.devnets.get('devnet');
  assert.ok(devnet, 'the devnet network got an anvil');
  assert.ok(s.logs.some((l) => l.msg === 'devnet started (anvil)' && l.url === devnet.url));
  // The devnet mines every second and prices are cached for half a block: the send's prices are those read just before or just after it.
  const average = async () => {
    const fees = await s.app.chains.evm('devnet').fees();
    assert.equal(fees.type, 'eip1559');
    return fees.type === 'eip1559' ? String(fees.speeds.average.maxFeePerGas) : '';
  };
  const before = await average();
  const sent = await s.request('POST', txPath('sepolia-example'), { body: { value: 1, to: TO, speed: 'average' } });
  assert.equal(sent.status, 200, sent.text);
  assert.ok(
    [before, await average()].includes(sent.body.data.max_fee_per_gas),
    `${sent.body.data.max_fee_per_gas} is the chain's average price`,
  );
  assert.deepEqual(
    s.app.chains.health().devnet!.map((h) => [h.url, h.up]),
    [[devnet.url, true]],
  );
  await s.close();
  assert.equal(await answers(devnet.url), false, 'the devnet is stopped with the app');
});

test('a network with real RPC URLs starts no devnet and is priced from those URLs', async (t) => {
  const s = await build(t, { config: { networks: [anvil.network('mine', { features: [] })], ...relayerOn('mine') } });
  assert.equal(s.app.chains.devnets.size, 0);
  const gasPrice = BigInt(await anvil.rpc<string>('eth_gasPrice'));
  const sent = await s.request('POST', txPath('r'), { body: { value: 1, to: TO, speed: 'fastest' } });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.data.gas_price, String(gasPrice * 2n));
});

test('a node answering another chain id stops the start, naming the network and both ids', async (t) => {
  await assert.rejects(
    build(t, { config: { networks: [anvil.network('wrong', { chain_id: 1 })], ...relayerOn('wrong') } }),
    /network 'wrong' is configured with chain_id 1, but its RPC answers chain id 31337/,
  );
});

test('an unreachable RPC at start is logged, and a speed send answers 503 CHAIN_UNAVAILABLE naming the network', async (t) => {
  const dead = { ...anvil.network('down'), rpc_urls: [{ url: 'http://127.0.0.1:1', weight: 100 }] };
  const s = await build(t, { config: { networks: [dead], ...relayerOn('down') } });
  assert.ok(s.logs.some((l) => l.level === 40 && l.network === 'down' && /unreachable at start/.test(String(l.msg))));
  const res = await s.request('POST', txPath('r'), { body: { value: 1, to: TO, speed: 'fast' } });
  assert.equal(res.status, 503);
  assert.equal(res.body.message, 'Service Unavailable');
  assert.match(res.body.error, /^network 'down': eth_feeHistory failed: /);
  // Explicit prices and gas limit still need the node: the balance is checked before signing.
  const explicit = await s.request('POST', txPath('r'), {
    body: { value: 1, to: TO, gas_price: 1_000_000_000, gas_limit: 21_000 },
  });
  assert.equal(explicit.status, 503);
  assert.match(explicit.body.error, /^network 'down': eth_getBalance failed: /);
});
